//! Exported functions of `NativeIterator.java`: chunks of entries out of any store's iterator.
//!
//! # Safety
//! Every `handle` is an iterator handle as described in `handles` (0 or live until `close`).

use crate::codec;
use crate::ffi::{invalid, run};
use crate::handles::{array_length, borrow, fill_array, free, into_handle, size};
use jni::objects::{JByteArray, JClass};
use jni::sys::{jint, jlong};
use jni::EnvUnowned;
use std::sync::Mutex;
use txn_rocksdb::segmented::FilteredIter;
use txn_rocksdb::RangeIter;

/// Any iterator that hands out entries in chunks; every iterator handle is an [`IterHandle`], so
/// one `next`/`close` pair serves all stores.
pub(crate) trait Chunked: Send {
    fn next_chunk(
        &mut self,
        max_entries: usize,
        max_bytes: usize,
        emit: &mut dyn FnMut(&[u8], &[u8]),
    ) -> txn_rocksdb::Result<usize>;
}

impl Chunked for RangeIter {
    fn next_chunk(&mut self, n: usize, b: usize, emit: &mut dyn FnMut(&[u8], &[u8])) -> txn_rocksdb::Result<usize> {
        RangeIter::next_chunk(self, n, b, emit)
    }
}

/// Window and session iterators (`WindowIter` and `SessionIter` are this type).
impl Chunked for FilteredIter {
    fn next_chunk(&mut self, n: usize, b: usize, emit: &mut dyn FnMut(&[u8], &[u8])) -> txn_rocksdb::Result<usize> {
        FilteredIter::next_chunk(self, n, b, emit)
    }
}

/// An engine iterator and the chunk it is handing out.
pub(crate) struct NativeIter {
    entries: Box<dyn Chunked>,
    /// The encoded chunk; kept when it did not fit the caller's buffer, until it does.
    chunk: Vec<u8>,
}

/// What an iterator handle points to. The engine's iterators hold their own references to the
/// store's data, so they stay valid whatever happens to the store handle; Java still closes them
/// before the store.
pub(crate) type IterHandle = Mutex<NativeIter>;

/// Moves an engine iterator to the heap and returns its handle.
pub(crate) fn iter_handle(it: impl Chunked + 'static) -> jlong {
    into_handle::<IterHandle>(Mutex::new(NativeIter { entries: Box::new(it), chunk: Vec::new() }))
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeIterator_next<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
    buffer: JByteArray<'l>,
    max_entries: jint,
    max_bytes: jint,
) -> jint {
    run(&mut env, |env| {
        if buffer.is_null() {
            return Err(invalid("chunk buffer must not be null"));
        }
        let (max_entries, max_bytes) =
            (size(max_entries.into(), "a chunk's entries")?, size(max_bytes.into(), "a chunk's bytes")?);
        let capacity = array_length(env, &buffer);
        let mut guard = borrow::<IterHandle>(handle, "iterator")?.lock().unwrap_or_else(|e| e.into_inner());
        let it = &mut *guard;
        if it.chunk.is_empty() {
            let chunk = &mut it.chunk;
            it.entries.next_chunk(max_entries, max_bytes, &mut |k, v| codec::push_entry(chunk, k, v))?;
        }
        let length = it.chunk.len();
        if length > capacity {
            // Kept for the next call, with a buffer at least this big.
            return i32::try_from(length)
                .map(|n| -n)
                .map_err(|_| invalid(format!("a chunk of {length} bytes does not fit a Java array")));
        }
        fill_array(env, &buffer, &it.chunk);
        it.chunk.clear();
        Ok(length as jint)
    })
}

#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeIterator_close<'l>(
    mut env: EnvUnowned<'l>,
    _class: JClass<'l>,
    handle: jlong,
) {
    run(&mut env, |_| free::<IterHandle>(handle, "iterator"))
}
