package dat.provider.support;

import dat.api.DatConstants;
import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.Qos;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/** The checks of connection arguments every provider makes alike, with the argument numbers of their pages. */
public final class ConnectArguments {

    private ConnectArguments() {
    }

    /**
     * dat_ep_connect(3DAT)'s {@code remote_ia_address}: given ({@code DAT_INVALID_PARAMETER},
     * {@code DAT_INVALID_ARG2}), resolved to an IP ({@code DAT_INVALID_ADDRESS_MALFORMED}), and one
     * host's unicast address, not the wildcard or a multicast group
     * ({@code DAT_INVALID_ADDRESS_UNSUPPORTED}).
     *
     * @param address the remote IA address
     * @throws DatException naming {@code remoteIaAddress}
     */
    public static void checkRemoteAddress(InetSocketAddress address) {
        if (address == null) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2, "remoteIaAddress", "null address");
        }
        InetAddress ip = address.getAddress();
        if (ip == null) {
            throw DatException.of(DatReturn.INVALID_ADDRESS, DatReturn.INVALID_ADDRESS_MALFORMED, "remoteIaAddress",
                    "unresolved address " + address);
        }
        if (ip.isAnyLocalAddress() || ip.isMulticastAddress()) {
            throw DatException.of(DatReturn.INVALID_ADDRESS, DatReturn.INVALID_ADDRESS_UNSUPPORTED, "remoteIaAddress",
                    "not a unicast address: " + address);
        }
    }

    /**
     * dat_ep_dup_connect(3DAT)'s own arguments, numbered as its page numbers them (timeout 3,
     * private data by its size 4, qos 6): a provider that then connects through its dat_ep_connect path
     * checks them first, so that a refusal names the argument of the call the consumer made.
     *
     * @param timeoutMicros the timeout: positive, or {@link DatConstants#TIMEOUT_INFINITE}
     * @param privateData the private data, or {@code null}
     * @param qos the QoS bits
     * @param maxPrivateData the provider's {@code max_private_data_size}
     * @throws DatException DAT_INVALID_PARAMETER naming the argument
     */
    public static void checkDupConnect(long timeoutMicros, byte[] privateData, int qos, int maxPrivateData) {
        if (!DatConstants.isValidTimeout(timeoutMicros) || timeoutMicros == 0) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG3, "timeoutMicros",
                    "must be positive, was " + timeoutMicros);
        }
        if (privateData != null && privateData.length > maxPrivateData) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG4, "privateData",
                    privateData.length + " bytes, at most " + maxPrivateData);
        }
        if (!Qos.isValid(qos)) {
            throw DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG6, "qos", "undefined bits");
        }
    }
}
