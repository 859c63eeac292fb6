//! The process-wide memory budget: one block cache and one write-buffer manager shared by every
//! store, so memory is bounded by default however many stores (tasks) a process opens.

use crate::error::{Error, Result};
use rust_rocksdb::{Cache, WriteBufferManager};
use std::sync::{Mutex, OnceLock};

/// Default block cache: 64 MiB for the whole process.
pub const DEFAULT_BLOCK_CACHE_BYTES: usize = 64 << 20;
/// Default memtable budget: 32 MiB for the whole process, charged to the block cache.
pub const DEFAULT_WRITE_BUFFER_BYTES: usize = 32 << 20;

pub(crate) struct Memory {
    pub cache: Cache,
    pub write_buffers: WriteBufferManager,
}

static MEMORY: OnceLock<Memory> = OnceLock::new();
static REQUESTED: Mutex<Option<(usize, usize)>> = Mutex::new(None);

/// Sets the budget used when the first store opens. Returns false (changing nothing) once a store
/// has opened, since RocksDB objects already share the earlier budget; refuses a budget of 0.
pub fn configure(block_cache_bytes: usize, write_buffer_bytes: usize) -> Result<bool> {
    if block_cache_bytes == 0 || write_buffer_bytes == 0 {
        return Err(Error::InvalidArgument(format!(
            "memory budgets must be positive, got block cache {block_cache_bytes} and write buffers {write_buffer_bytes}"
        )));
    }
    if MEMORY.get().is_some() {
        return Ok(false);
    }
    *REQUESTED.lock().unwrap_or_else(|e| e.into_inner()) = Some((block_cache_bytes, write_buffer_bytes));
    // A store may have opened between the check and the store above; report what happened.
    Ok(MEMORY.get().is_none())
}

pub(crate) fn shared() -> &'static Memory {
    MEMORY.get_or_init(|| {
        let (cache_bytes, wb_bytes) = REQUESTED
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .unwrap_or((DEFAULT_BLOCK_CACHE_BYTES, DEFAULT_WRITE_BUFFER_BYTES));
        let cache = Cache::new_lru_cache(cache_bytes);
        // allow_stall=false: writers are never blocked; memtables are flushed early instead.
        let write_buffers = WriteBufferManager::new_write_buffer_manager_with_cache(wb_bytes, false, cache.clone());
        Memory { cache, write_buffers }
    })
}

/// The budget in force: (block cache bytes, write buffer bytes), creating the default if needed.
pub fn budget() -> (usize, usize) {
    let budget = shared();
    (budget.cache.get_capacity(), budget.write_buffers.get_buffer_size())
}
