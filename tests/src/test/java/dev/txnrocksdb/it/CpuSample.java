package dev.txnrocksdb.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * CPU time used so far by the app's JVM and the broker's JVM (user + system, every thread:
 * {@link ProcessHandle.Info#totalCpuDuration}, which Linux reads from {@code /proc/<pid>/stat}) and
 * by the whole machine (the {@code cpu} line of {@code /proc/stat}), at one moment. Two samples,
 * at the start and the end of a throughput run, say where the CPU went during it ({@link #since}):
 * whether the app's stream thread was the bottleneck (the app near one core), the broker, or the
 * machine itself (busy near all its cores, the driver and anything else sharing it included).
 *
 * @param appNanos     the app JVM's CPU time, or -1 if the OS does not tell
 * @param brokerNanos  the broker JVM's CPU time, or -1
 * @param machineBusy  jiffies the machine's CPUs spent neither idle nor waiting for I/O, or -1
 * @param machineTotal jiffies of all the machine's CPUs, or -1
 * @param cpus         the machine's CPUs ({@code cpuN} lines of {@code /proc/stat})
 * @param wallNanos    {@link System#nanoTime()} at the sample
 */
record CpuSample(long appNanos, long brokerNanos, long machineBusy, long machineTotal, int cpus, long wallNanos) {

    /** A sample now, of the processes {@code appPid} and {@code brokerPid}. */
    static CpuSample take(long appPid, long brokerPid) {
        long[] machine = machine();
        return new CpuSample(
                cpuNanos(appPid), cpuNanos(brokerPid), machine[0], machine[1], (int) machine[2], System.nanoTime());
    }

    /**
     * Per process and for the machine, the CPU used between {@code start} and this sample in cores
     * (CPU seconds per wall-clock second): {@code appCores}, {@code brokerCores},
     * {@code machineBusyCores} (of {@code machineCores}); null where a sample is missing.
     */
    Map<String, Object> since(CpuSample start) {
        double wall = (wallNanos - start.wallNanos) / 1e9;
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("appCores", appNanos < 0 || start.appNanos < 0 ? null : round((appNanos - start.appNanos) / 1e9 / wall));
        m.put(
                "brokerCores",
                brokerNanos < 0 || start.brokerNanos < 0
                        ? null
                        : round((brokerNanos - start.brokerNanos) / 1e9 / wall));
        long total = machineTotal - start.machineTotal;
        m.put(
                "machineBusyCores",
                machineTotal < 0 || start.machineTotal < 0 || total <= 0
                        ? null
                        : round((double) (machineBusy - start.machineBusy) / total * cpus));
        m.put("machineCores", cpus);
        return m;
    }

    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }

    private static long cpuNanos(long pid) {
        return ProcessHandle.of(pid)
                .flatMap(h -> h.info().totalCpuDuration())
                .map(d -> d.toNanos())
                .orElse(-1L);
    }

    /** {busy jiffies, total jiffies, CPUs} from /proc/stat, or {-1, -1, available processors}. */
    private static long[] machine() {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/stat"));
            String[] f = lines.get(0).trim().split("\\s+"); // cpu user nice system idle iowait irq softirq steal ...
            long total = 0;
            for (int i = 1; i <= 8 && i < f.length; i++) total += Long.parseLong(f[i]); // guest time is inside user
            long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]);
            long cpus = lines.stream().filter(l -> l.matches("cpu\\d+ .*")).count();
            return new long[] {total - idle, total, cpus};
        } catch (IOException | RuntimeException e) {
            return new long[] {-1, -1, Runtime.getRuntime().availableProcessors()};
        }
    }
}
