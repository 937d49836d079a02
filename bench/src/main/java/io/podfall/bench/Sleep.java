package io.podfall.bench;

final class Sleep {
    private Sleep() {}

    static void millis(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
