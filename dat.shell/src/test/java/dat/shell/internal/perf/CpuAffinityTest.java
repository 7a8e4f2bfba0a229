package dat.shell.internal.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class CpuAffinityTest {

    private static boolean linuxWithTwoCpus() {
        return System.getProperty("os.name").startsWith("Linux") && Runtime.getRuntime().availableProcessors() >= 2
                && CpuAffinity.currentMask() != null;
    }

    private static byte[] only(int cpu) {
        byte[] mask = new byte[128];
        mask[cpu / 8] = (byte) (1 << (cpu % 8));
        return mask;
    }

    @Test
    void aThreadStartedByAPinnedThreadCanBePinnedToAnotherCpu_andTheCallerIsRestored() throws Exception {
        assumeTrue(linuxWithTwoCpus(), "Linux with two CPUs");
        byte[] before = CpuAffinity.currentMask();
        try {
            assertThat(CpuAffinity.pinCurrentThread(0)).isTrue();
            assertThat(CpuAffinity.currentMask()).isEqualTo(only(0));
            // what the perf runner's peer thread does: it inherits {0} and must reach CPU 1
            AtomicReference<byte[]> peerMask = new AtomicReference<>();
            Thread peer = new Thread(() -> {
                CpuAffinity.pinCurrentThread(1);
                peerMask.set(CpuAffinity.currentMask());
            });
            peer.start();
            peer.join(10_000);
            assertThat(peerMask.get()).isEqualTo(only(1));
        } finally {
            CpuAffinity.restore(before);
        }
        assertThat(CpuAffinity.currentMask()).as("the caller's mask is back").isEqualTo(before);
    }
}
