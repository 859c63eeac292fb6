//! Exported functions of `NativeLogging.java`, and the bridge that sends the Rust side's `log`
//! records (the engine's, this crate's, the `jni` crate's) to SLF4J.
//!
//! A record with target `a::b` goes to the SLF4J logger `dev.txnrocksdb.native.a.b` at the same
//! level. Levels are filtered here, before any JNI call: the level each logger has enabled in
//! SLF4J is asked once and cached, and asked again at most every [`LEVEL_REFRESH`] (or when a
//! store opens, [`refresh`]); `log::max_level` is the most verbose level any cached logger has, so
//! a disabled `debug!` costs one atomic load. Each logger passes at most [`RECORDS_PER_WINDOW`]
//! records per [`RATE_WINDOW`]; the next record after a window that dropped some says how many.
//!
//! Records may come from any thread. A thread that is not attached to the JVM is attached for
//! the one call and detached again; if attaching fails (the JVM is shutting down) or the Java side
//! throws, the record is dropped: logging never fails the caller nor crashes the process.

use crate::ffi::run;
use jni::objects::{Global, JClass, JValue};
use jni::{jni_sig, jni_str, Env, EnvUnowned, JavaVM};
use log::{Level, LevelFilter, Log, Metadata, Record};
use std::cell::Cell;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

/// Prefix of every SLF4J logger name the bridge writes to.
pub(crate) const LOGGER_PREFIX: &str = "dev.txnrocksdb.native";
/// How long a logger's cached level is trusted.
pub(crate) const LEVEL_REFRESH: Duration = Duration::from_secs(30);
/// Rate limit: records one logger may pass per window.
pub(crate) const RECORDS_PER_WINDOW: u32 = 50;
pub(crate) const RATE_WINDOW: Duration = Duration::from_secs(1);
/// Loggers whose level is asked at install and at every refresh, so records of modules that have
/// not logged yet still pass `log::max_level` when these loggers enable them.
const KNOWN_TARGETS: [&str; 2] = ["txn_rocksdb", "txn_rocksdb_jni"];

/// Where the bridge writes: SLF4J through JNI ([`Jvm`]), or a test double.
pub(crate) trait Sink: Send + Sync {
    /// The most verbose level `logger` has enabled (`Off`, also when it cannot be asked).
    fn enabled_level(&self, logger: &str) -> LevelFilter;
    /// Writes one message; a failure drops it.
    fn write(&self, logger: &str, level: Level, message: &str);
}

/// The SLF4J logger name of a record target: `txn_rocksdb::store` → `dev.txnrocksdb.native.txn_rocksdb.store`.
pub(crate) fn logger_name(target: &str) -> String {
    format!("{LOGGER_PREFIX}.{}", target.replace("::", "."))
}

struct TargetState {
    logger: String,
    level: LevelFilter,
    asked: Instant,
    window_start: Instant,
    in_window: u32,
    dropped: u64,
}

/// What one record turned into (returned for the tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    Disabled,
    Written,
    RateLimited,
}

/// The `log::Log` implementation over a [`Sink`].
pub(crate) struct Bridge<S: Sink> {
    sink: S,
    targets: Mutex<HashMap<String, TargetState>>,
}

thread_local! {
    /// Set while this thread is inside the bridge: a record logged from there (by the `jni` crate
    /// while calling Java) is dropped instead of recursing.
    static IN_BRIDGE: Cell<bool> = const { Cell::new(false) };
}

impl<S: Sink> Bridge<S> {
    pub(crate) fn new(sink: S) -> Bridge<S> {
        Bridge { sink, targets: Mutex::new(HashMap::new()) }
    }

    /// Asks the levels of the known loggers and of every logger seen so far again; returns the
    /// most verbose one (what `log::max_level` should be).
    pub(crate) fn refresh(&self, now: Instant) -> LevelFilter {
        let mut targets = self.targets.lock().unwrap_or_else(PoisonError::into_inner);
        for target in KNOWN_TARGETS {
            targets.entry(target.to_string()).or_insert_with(|| new_state(target, now));
        }
        let mut max = LevelFilter::Off;
        for state in targets.values_mut() {
            state.level = self.sink.enabled_level(&state.logger);
            state.asked = now;
            max = max.max(state.level);
        }
        max
    }

    /// Filters, rate-limits and writes one record. `None` for `max_level`: unchanged.
    pub(crate) fn handle(
        &self,
        target: &str,
        level: Level,
        message: impl FnOnce() -> String,
        now: Instant,
    ) -> (Outcome, Option<LevelFilter>) {
        let mut new_max = None;
        let (logger, dropped) = {
            let mut targets = self.targets.lock().unwrap_or_else(PoisonError::into_inner);
            let fresh = !targets.contains_key(target);
            let state = targets.entry(target.to_string()).or_insert_with(|| new_state(target, now));
            if fresh || now.duration_since(state.asked) >= LEVEL_REFRESH {
                state.level = self.sink.enabled_level(&state.logger);
                state.asked = now;
                let level = state.level;
                new_max = Some(targets.values().map(|s| s.level).max().unwrap_or(level));
            }
            let Some(state) = targets.get_mut(target) else {
                return (Outcome::Disabled, new_max);
            };
            if level > state.level {
                return (Outcome::Disabled, new_max);
            }
            if now.duration_since(state.window_start) >= RATE_WINDOW {
                state.window_start = now;
                state.in_window = 0;
            }
            if state.in_window >= RECORDS_PER_WINDOW {
                state.dropped += 1;
                return (Outcome::RateLimited, new_max);
            }
            state.in_window += 1;
            (state.logger.clone(), std::mem::take(&mut state.dropped))
        };
        if dropped > 0 {
            let note = format!(
                "{dropped} records of this logger were dropped (at most {RECORDS_PER_WINDOW} per {RATE_WINDOW:?})"
            );
            self.sink.write(&logger, Level::Warn, &note);
        }
        self.sink.write(&logger, level, &message());
        (Outcome::Written, new_max)
    }
}

fn new_state(target: &str, now: Instant) -> TargetState {
    TargetState {
        logger: logger_name(target),
        level: LevelFilter::Off,
        asked: now,
        window_start: now,
        in_window: 0,
        dropped: 0,
    }
}

impl<S: Sink> Log for Bridge<S> {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.level() <= log::max_level()
    }

    fn log(&self, record: &Record<'_>) {
        if record.level() > log::max_level() || IN_BRIDGE.with(Cell::get) {
            return;
        }
        IN_BRIDGE.with(|flag| flag.set(true));
        let (_, new_max) = self.handle(record.target(), record.level(), || record.args().to_string(), Instant::now());
        if let Some(max) = new_max {
            log::set_max_level(max);
        }
        IN_BRIDGE.with(|flag| flag.set(false));
    }

    fn flush(&self) {}
}

/// SLF4J through `NativeLogging`'s static methods `enabledLevel` and `log`.
pub(crate) struct Jvm {
    vm: JavaVM,
    class: Global<JClass<'static>>,
}

impl Jvm {
    /// Runs `f` on this thread attached to the JVM (attached only for the call if it was not);
    /// `None` if attaching fails or `f` fails (a Java exception is caught and cleared).
    fn call<T>(&self, f: impl FnOnce(&mut Env<'_>, &JClass<'_>) -> jni::errors::Result<T>) -> Option<T> {
        self.vm.attach_current_thread_for_scope(|env| f(env, self.class.as_ref())).ok()
    }
}

impl Sink for Jvm {
    fn enabled_level(&self, logger: &str) -> LevelFilter {
        let level = self.call(|env, class| {
            let name = env.new_string(logger)?;
            env.call_static_method(
                class,
                jni_str!("enabledLevel"),
                jni_sig!("(Ljava/lang/String;)I"),
                &[JValue::Object(&name)],
            )?
            .i()
        });
        match level.unwrap_or(0) {
            1 => LevelFilter::Error,
            2 => LevelFilter::Warn,
            3 => LevelFilter::Info,
            4 => LevelFilter::Debug,
            5 => LevelFilter::Trace,
            _ => LevelFilter::Off,
        }
    }

    fn write(&self, logger: &str, level: Level, message: &str) {
        self.call(|env, class| {
            let name = env.new_string(logger)?;
            let text = env.new_string(message)?;
            env.call_static_method(
                class,
                jni_str!("log"),
                jni_sig!("(Ljava/lang/String;ILjava/lang/String;)V"),
                &[JValue::Object(&name), JValue::Int(level as i32), JValue::Object(&text)],
            )?;
            Ok(())
        });
    }
}

static BRIDGE: OnceLock<Bridge<Jvm>> = OnceLock::new();

/// Installs the bridge as the process's `log` logger (once; later calls only refresh the levels).
fn install(env: &mut Env<'_>, class: &JClass<'_>) -> jni::errors::Result<()> {
    if BRIDGE.get().is_none() {
        let jvm = Jvm { vm: env.get_java_vm()?, class: env.new_global_ref(class)? };
        if BRIDGE.set(Bridge::new(jvm)).is_ok() {
            if let Some(bridge) = BRIDGE.get() {
                log::set_max_level(LevelFilter::Off);
                // Fails only if another logger was installed in this library first: keep that one.
                let _ = log::set_logger(bridge);
            }
        }
    }
    refresh();
    Ok(())
}

/// Asks SLF4J for the levels again (called by Java when a store opens).
fn refresh() {
    if let Some(bridge) = BRIDGE.get() {
        IN_BRIDGE.with(|flag| flag.set(true));
        log::set_max_level(bridge.refresh(Instant::now()));
        IN_BRIDGE.with(|flag| flag.set(false));
    }
}

/// Installs the bridge (first call) or refreshes the cached levels (later calls).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_txnrocksdb_streams_internals_nativeapi_NativeLogging_install0<'l>(
    mut env: EnvUnowned<'l>,
    class: JClass<'l>,
) {
    run(&mut env, |env| Ok(install(env, &class)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Every logger at `level`; counts the questions and keeps the writes.
    struct Recorder {
        level: LevelFilter,
        questions: AtomicUsize,
        written: Mutex<Vec<(String, Level, String)>>,
    }

    impl Recorder {
        fn new(level: LevelFilter) -> Recorder {
            Recorder { level, questions: AtomicUsize::new(0), written: Mutex::new(Vec::new()) }
        }
    }

    impl Sink for &Recorder {
        fn enabled_level(&self, _logger: &str) -> LevelFilter {
            self.questions.fetch_add(1, Ordering::SeqCst);
            self.level
        }

        fn write(&self, logger: &str, level: Level, message: &str) {
            self.written.lock().unwrap().push((logger.to_string(), level, message.to_string()));
        }
    }

    #[test]
    fn logger_names_follow_the_module_path() {
        assert_eq!(
            logger_name("txn_rocksdb::secondary::roll_forward"),
            "dev.txnrocksdb.native.txn_rocksdb.secondary.roll_forward"
        );
    }

    #[test]
    fn a_disabled_level_is_neither_formatted_nor_written_and_the_level_is_asked_once() {
        let recorder = Recorder::new(LevelFilter::Info);
        let bridge = Bridge::new(&recorder);
        let now = Instant::now();
        for i in 0..1000 {
            let (outcome, _) = bridge.handle(
                "txn_rocksdb::store",
                Level::Debug,
                || panic!("formatted a disabled record"),
                now + Duration::from_millis(i),
            );
            assert_eq!(outcome, Outcome::Disabled);
        }
        assert_eq!(recorder.questions.load(Ordering::SeqCst), 1);
        let (outcome, max) = bridge.handle("txn_rocksdb::store", Level::Info, || "opened".into(), now + LEVEL_REFRESH);
        assert_eq!(outcome, Outcome::Written);
        assert_eq!(max, Some(LevelFilter::Info), "asked again after the refresh interval");
        let written = recorder.written.lock().unwrap();
        assert_eq!(
            *written,
            vec![("dev.txnrocksdb.native.txn_rocksdb.store".to_string(), Level::Info, "opened".to_string())]
        );
    }

    #[test]
    fn a_hot_loop_is_rate_limited_and_the_drops_are_reported() {
        let recorder = Recorder::new(LevelFilter::Trace);
        let bridge = Bridge::new(&recorder);
        let now = Instant::now();
        let outcomes: Vec<Outcome> =
            (0..10_000).map(|_| bridge.handle("t", Level::Warn, || "again".into(), now).0).collect();
        let written = outcomes.iter().filter(|o| **o == Outcome::Written).count();
        assert_eq!(written, RECORDS_PER_WINDOW as usize);
        bridge.handle("t", Level::Warn, || "later".into(), now + RATE_WINDOW);
        let log = recorder.written.lock().unwrap();
        let dropped_note = &log[RECORDS_PER_WINDOW as usize];
        assert!(
            dropped_note.2.starts_with(&format!("{} records of this logger were dropped", 10_000 - RECORDS_PER_WINDOW)),
            "{dropped_note:?}"
        );
        assert_eq!(log.last().unwrap().2, "later");
        drop(log);
        // Another logger has its own budget.
        assert_eq!(bridge.handle("u", Level::Warn, || "other".into(), now).0, Outcome::Written);
    }

    #[test]
    fn refresh_returns_the_most_verbose_level() {
        let recorder = Recorder::new(LevelFilter::Debug);
        let bridge = Bridge::new(&recorder);
        assert_eq!(bridge.refresh(Instant::now()), LevelFilter::Debug);
        assert_eq!(recorder.questions.load(Ordering::SeqCst), KNOWN_TARGETS.len());
    }
}
