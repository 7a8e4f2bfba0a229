package dat.tests.conformance.internal;

import dat.api.ProviderAttributes;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * What a consumer's private data must look like when it arrives: exactly the bytes its peer
 * sent, or, on a transport whose connection messages carry fixed-size private-data areas
 * (InfiniBand and RoCE CM) where the provider declares {@link #AREA}, those bytes followed by
 * zeros only, as OFED uDAPL hands the area over.
 */
public final class PrivateData {

    /** The deviation a provider declares for private-data areas: {@value}. */
    public static final String AREA = "private_data_area";

    private PrivateData() {
    }

    /**
     * Checks received private data against what the peer sent.
     *
     * @param t the test
     * @param received the private data of the request or event
     * @param sent what the peer passed, {@code null} for none
     * @param what which private data, for the failure message
     */
    public static void check(IaUnderTest t, byte[] received, byte[] sent, String what) {
        byte[] expected = sent == null ? new byte[0] : sent;
        if (Arrays.equals(received, expected)) {
            return;
        }
        boolean area = t.declaredDeviation(AREA).isPresent();
        if (area && received != null && received.length >= expected.length
                && Arrays.equals(received, 0, expected.length, expected, 0, expected.length) && zeros(received, expected.length)) {
            return;
        }
        throw t.failure(what + ": expected the " + expected.length + " bytes sent" + (area ? " (followed by zeros only, as the"
                + " provider declares " + ProviderAttributes.DEVIATION_PREFIX + AREA + ")" : "") + ", got "
                + (received == null ? "null" : received.length + " bytes " + HexFormat.of().formatHex(received)));
    }

    private static boolean zeros(byte[] bytes, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] != 0) {
                return false;
            }
        }
        return true;
    }
}
