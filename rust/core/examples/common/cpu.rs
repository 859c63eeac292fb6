//! What the examples share: this thread's CPU time.

/// This thread's CPU time (user + system) in clock ticks (`/proc/thread-self/stat`): rates per CPU
/// second stay comparable when other processes share the machine, where rates per second do not.
pub fn thread_cpu_ticks() -> u64 {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap_or_default();
    // fields after the command name (which is in parentheses): state is field 3, utime 14, stime 15
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after.split_whitespace().collect();
    let field = |n: usize| fields.get(n - 3).and_then(|f| f.parse::<u64>().ok()).unwrap_or(0);
    field(14) + field(15)
}
