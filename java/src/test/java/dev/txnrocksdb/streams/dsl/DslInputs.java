package dev.txnrocksdb.streams.dsl;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Seeded input generators for the differential DSL tests.
 *
 * <p>Event time mostly moves forward in random steps (some of them 0, so timestamps repeat), with
 * out-of-order records (inside the grace period), late records (far behind stream time, beyond
 * any grace period used here) and occasional jumps (15-45 s, so that many windows close and
 * segments expire at once) mixed in. Keys come from a small set that contains byte prefixes of
 * one another ({@code a}, {@code aa}, {@code ab}) so that the raw-byte order of store keys matters.
 */
final class DslInputs {
    /** Input topic names. */
    static final String LEFT = "left";

    static final String RIGHT = "right";

    /** Keys: a small set with byte-prefix pairs. */
    static final List<String> KEYS = List.of("a", "aa", "ab", "b", "c");

    private DslInputs() {}

    /** One input record; {@code index} is its position in the input (also sent as header "n"). */
    record Event(int index, String topic, String key, String value, long timestamp) {
        @Override
        public String toString() {
            return "#" + index + " " + topic + " " + key + "=" + value + " @" + timestamp;
        }
    }

    /**
     * Shape of one generated input.
     *
     * @param topics topics to spread the records over (uniformly)
     * @param keysByTopic keys to draw from, per topic index
     * @param count number of records
     * @param nullProbability probability of a null value (0 where the operator does not allow it)
     * @param meanStepMs mean forward step of stream time (uniform in [0, 2*mean])
     * @param outOfOrderProbability probability of a record up to {@code outOfOrderMaxMs} behind stream time
     * @param outOfOrderMaxMs maximum lateness of an out-of-order record (keep it inside the grace period)
     * @param lateProbability probability of a record between {@code lateMinMs} and {@code lateMaxMs} behind stream time
     * @param lateMinMs minimum lateness of a late record (beyond the grace period)
     * @param lateMaxMs maximum lateness of a late record
     * @param valueFn value for (topic index, record index, random); called only for non-null values
     */
    record Spec(
            List<String> topics,
            List<List<String>> keysByTopic,
            int count,
            double nullProbability,
            long meanStepMs,
            double outOfOrderProbability,
            long outOfOrderMaxMs,
            double lateProbability,
            long lateMinMs,
            long lateMaxMs,
            ValueFn valueFn) {
        static final double JUMP_PROBABILITY = 0.03;
        static final long JUMP_MIN_MS = 15_000;
        static final long JUMP_MAX_MS = 45_000;

        /** Records on {@link #LEFT} only. */
        static Spec oneTopic(int count, double nullProbability) {
            return new Spec(
                    List.of(LEFT),
                    List.of(KEYS),
                    count,
                    nullProbability,
                    1_000,
                    0.15,
                    5_000,
                    0.06,
                    6_000,
                    40_000,
                    (topic, i, random) -> "v" + i);
        }

        /** Records on {@link #LEFT} and {@link #RIGHT}, same keys. */
        static Spec twoTopics(int count, double nullProbability) {
            return new Spec(
                    List.of(LEFT, RIGHT),
                    List.of(KEYS, KEYS),
                    count,
                    nullProbability,
                    700,
                    0.15,
                    5_000,
                    0.06,
                    6_000,
                    40_000,
                    (topic, i, random) -> (topic == 0 ? "L" : "R") + i);
        }

        Spec withValues(ValueFn fn) {
            return new Spec(
                    topics,
                    keysByTopic,
                    count,
                    nullProbability,
                    meanStepMs,
                    outOfOrderProbability,
                    outOfOrderMaxMs,
                    lateProbability,
                    lateMinMs,
                    lateMaxMs,
                    fn);
        }

        Spec withKeys(List<List<String>> keys) {
            return new Spec(
                    topics,
                    keys,
                    count,
                    nullProbability,
                    meanStepMs,
                    outOfOrderProbability,
                    outOfOrderMaxMs,
                    lateProbability,
                    lateMinMs,
                    lateMaxMs,
                    valueFn);
        }

        Spec withTiming(long meanStep, long outOfOrderMax, long lateMin, long lateMax) {
            return new Spec(
                    topics,
                    keysByTopic,
                    count,
                    nullProbability,
                    meanStep,
                    outOfOrderProbability,
                    outOfOrderMax,
                    lateProbability,
                    lateMin,
                    lateMax,
                    valueFn);
        }
    }

    @FunctionalInterface
    interface ValueFn {
        String value(int topicIndex, int recordIndex, Random random);
    }

    static List<Event> generate(Spec spec, long seed) {
        Random random = new Random(seed);
        List<Event> events = new ArrayList<>(spec.count());
        long streamTime = 0;
        for (int i = 0; i < spec.count(); i++) {
            int topic = random.nextInt(spec.topics().size());
            List<String> keys = spec.keysByTopic().get(topic);
            String key = keys.get(random.nextInt(keys.size()));
            double roll = random.nextDouble();
            long timestamp;
            if (i > 10 && roll < spec.lateProbability()) {
                long lateness = spec.lateMinMs() + (long) (random.nextDouble() * (spec.lateMaxMs() - spec.lateMinMs()));
                timestamp = Math.max(0, streamTime - lateness);
            } else if (roll < spec.lateProbability() + spec.outOfOrderProbability()) {
                timestamp = Math.max(0, streamTime - (long) (random.nextDouble() * spec.outOfOrderMaxMs()));
            } else if (roll < spec.lateProbability() + spec.outOfOrderProbability() + Spec.JUMP_PROBABILITY) {
                streamTime += Spec.JUMP_MIN_MS + (long) (random.nextDouble() * (Spec.JUMP_MAX_MS - Spec.JUMP_MIN_MS));
                timestamp = streamTime;
            } else {
                streamTime += (long) (random.nextDouble() * 2 * spec.meanStepMs());
                timestamp = streamTime;
            }
            String value = random.nextDouble() < spec.nullProbability()
                    ? null
                    : spec.valueFn().value(topic, i, random);
            events.add(new Event(i, spec.topics().get(topic), key, value, timestamp));
        }
        return Collections.unmodifiableList(events);
    }
}
