package dat.shell.internal.perf;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.RmrTriplet;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The private data of {@code dat perf --client} and {@code --server}: the depth travels in both
 * directions, and a client or server from before it reads the rest where it always was.
 */
class PerfProtocolTest {

    @Test
    void aRequestCarriesTheClientsDepth() {
        byte[] data = new PerfServer.Request(PerfServer.QUIET, 65536, 8).encode();
        assertThat(data).hasSize(PerfServer.Request.BYTES);
        assertThat(PerfServer.Request.decode(data)).isEqualTo(new PerfServer.Request(PerfServer.QUIET, 65536, 8));
    }

    @Test
    void aServerFromBeforeTheDepth_readsModeAndSizeWhereTheyWere() {
        // what such a server reads: the mode, then the size, big-endian; it ignores what follows
        ByteBuffer old = ByteBuffer.wrap(new PerfServer.Request(PerfServer.ECHO, 4096, 8).encode());
        assertThat(old.get()).isEqualTo(PerfServer.ECHO);
        assertThat(old.getLong()).isEqualTo(4096);
    }

    @Test
    void aRequestFromAClientBeforeTheDepth_isServedTheDefault() {
        byte[] old = Arrays.copyOf(new PerfServer.Request(PerfServer.ECHO, 4096, 8).encode(), PerfServer.Request.BYTES_WITHOUT_DEPTH);
        assertThat(PerfServer.Request.decode(old)).isEqualTo(new PerfServer.Request(PerfServer.ECHO, 4096, PerfServer.DEFAULT_DEPTH));
    }

    @Test
    void whatNoDatPerfClientSends_isNoRequest() {
        assertThat(PerfServer.Request.decode(null)).isNull();
        assertThat(PerfServer.Request.decode(new byte[PerfServer.Request.BYTES_WITHOUT_DEPTH - 1])).isNull();
        assertThat(PerfServer.Request.decode(new PerfServer.Request(PerfServer.QUIET, 64, 0).encode())).isNull();
        assertThat(PerfServer.Request.decode(new PerfServer.Request(PerfServer.QUIET, 64, -1).encode())).isNull();
    }

    @Test
    void anAcceptCarriesTheDepthTheServerTook() {
        // RmrTriplet has no equals of its own: compared field by field
        PerfServer.Accept accept = new PerfServer.Accept(new RmrTriplet(7, 0x1000, 16L << 20), 7703, 4);
        byte[] data = accept.encode();
        assertThat(data).hasSize(PerfServer.Accept.BYTES);
        assertThat(PerfServer.Accept.decode(data)).usingRecursiveComparison().isEqualTo(accept);
        // a client from before the depth reads the buffer and the port where they were, and ignores the rest
        ByteBuffer old = ByteBuffer.wrap(data);
        assertThat(new RmrTriplet(old.getInt(), old.getLong(), old.getLong())).usingRecursiveComparison().isEqualTo(accept.buffer());
        assertThat(old.getInt()).isEqualTo(7703);
    }

    @Test
    void anAcceptFromAServerBeforeTheDepth_saysTheDefault() {
        PerfServer.Accept accept = new PerfServer.Accept(new RmrTriplet(7, 0x1000, 16L << 20), 7703, 4);
        byte[] old = Arrays.copyOf(accept.encode(), PerfServer.Accept.BYTES_WITHOUT_DEPTH);
        assertThat(PerfServer.Accept.decode(old)).usingRecursiveComparison()
                .isEqualTo(new PerfServer.Accept(accept.buffer(), 7703, PerfServer.DEFAULT_DEPTH));
        assertThat(PerfServer.Accept.decode(Arrays.copyOf(old, old.length - 1))).isNull();
        assertThat(PerfServer.Accept.decode(null)).isNull();
    }
}
