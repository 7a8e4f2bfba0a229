package dat.api;

import java.net.InetSocketAddress;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The parameters of a Connection Request, {@code DAT_CR_PARAM}: see dat_cr_query(3DAT).
 *
 * @param remoteIaAddress the address of the requesting IA
 * @param remotePortQual the port qualifier of the requesting Endpoint
 * @param privateData the requester's private data (a copy), empty when none
 * @param localEp the Endpoint the Service Point provided (RSP, or PSP with
 *     {@link PspFlag#PROVIDER}), or {@code null}
 */
@ProviderType
public record CrParams(InetSocketAddress remoteIaAddress, long remotePortQual, byte[] privateData, Endpoint localEp) {

    /** Copies the private data, so the record stays immutable. */
    public CrParams {
        privateData = privateData == null ? new byte[0] : privateData.clone();
    }

    /**
     * The requester's private data.
     *
     * @return a copy of the private data
     */
    @Override
    public byte[] privateData() {
        return privateData.clone();
    }
}
