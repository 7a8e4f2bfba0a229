package dat.provider.verbs.internal;

import dat.api.DatException;
import dat.api.DatReturn;
import dat.provider.verbs.internal.ffi.Verbs;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The usable ports a {@link VerbsRuntime} found, and the port a static registry entry's
 * {@code ia_params} names, in the forms OFED's {@code dat.conf} uses:
 * <ul>
 * <li>a device and port, {@code "mlx4_0 1"} (the scm/ucm form; port 0 takes the device's first
 *     usable port);</li>
 * <li>a netdev and 0, {@code "ib0 0"} (the cma form): the port rdma_cm maps the netdev's address
 *     to, with that address as the IA address;</li>
 * <li>an IP address or host name and 0, {@code "192.168.0.1 0"}: the same for that address.</li>
 * </ul>
 * An entry naming nothing usable is refused with {@code DAT_PROVIDER_NOT_FOUND}, which the
 * registry reports as the entry's failed initialization.
 */
final class PortDirectory {

    private final Verbs verbs;
    private final List<DevicePort> ports;
    /** What {@link WindowProbe} found, by device: probed once, by the first IA opened on the device. */
    private final java.util.concurrent.ConcurrentHashMap<String, Boolean> windowBounds = new java.util.concurrent.ConcurrentHashMap<>();

    PortDirectory(Verbs verbs, List<DevicePort> ports) {
        this.verbs = verbs;
        this.ports = List.copyOf(ports);
    }

    /**
     * Whether the device of a port confines accesses through a memory window to the window's
     * range: probed ({@link WindowProbe}) on the first call for the device, remembered after.
     *
     * @param port the port
     * @param context an open context of its device
     */
    boolean windowBoundsEnforced(DevicePort port, java.lang.foreign.MemorySegment context) {
        return windowBounds.computeIfAbsent(port.deviceName(), device -> WindowProbe.enforcesBounds(verbs, context, port));
    }

    /** The memory of each SHARED_VIRTUAL cookie registered: address, size and users, by the cookie's hex form. */
    private final java.util.Map<String, long[]> sharedRegions = new java.util.HashMap<>();

    /**
     * Records a registration of shared memory under its cookie: every registration of one cookie
     * in this runtime must name the same memory (dat_lmr_create(3DAT): the cookie identifies the
     * shared region; each process maps it where it maps it, and registers its own mapping).
     *
     * @throws DatException {@code DAT_INVALID_STATE} when the cookie names other memory already
     */
    synchronized void attachShared(byte[] cookie, long address, long size) {
        String key = java.util.HexFormat.of().formatHex(cookie);
        long[] region = sharedRegions.get(key);
        if (region == null) {
            sharedRegions.put(key, new long[] {address, size, 1});
        } else if (region[0] != address || region[1] != size) {
            throw DatException.of(DatReturn.INVALID_STATE, DatReturn.NO_SUBTYPE, "region", "the cookie names shared memory at 0x"
                    + Long.toHexString(region[0]) + " (" + region[1] + " bytes) in this process, not this region");
        } else {
            region[2]++;
        }
    }

    /** Ends a registration of {@link #attachShared}. */
    synchronized void detachShared(byte[] cookie) {
        String key = java.util.HexFormat.of().formatHex(cookie);
        long[] region = sharedRegions.get(key);
        if (region != null && --region[2] == 0) {
            sharedRegions.remove(key);
        }
    }

    /** @return the usable ports, each with the address discovery chose */
    List<DevicePort> ports() {
        return ports;
    }

    /**
     * The port of an OFED IA name {@code ofa-v2-<device>-<port>}.
     *
     * @return the port, or {@code null}
     */
    DevicePort byIaName(String iaName) {
        for (DevicePort port : ports) {
            if (port.iaName().equals(iaName)) {
                return port;
            }
        }
        return null;
    }

    /**
     * The port, and the address on it, that {@code ia_params} name.
     *
     * @param iaParams the entry's {@code ia_params}
     * @return the port to open the IA on
     * @throws DatException {@code DAT_PROVIDER_NOT_FOUND} when the parameters name no usable port
     */
    DevicePort resolve(String iaParams) {
        String[] words = iaParams == null ? new String[0] : iaParams.strip().split("\\s+");
        if (words.length == 0 || words[0].isEmpty()) {
            throw notFound(iaParams, "empty ia_params: expected a device and port (\"mlx5_0 1\"), a netdev (\"ib0 0\")"
                    + " or an IP address (\"192.168.0.1 0\")");
        }
        int portNumber;
        try {
            portNumber = words.length > 1 ? Integer.parseInt(words[1]) : 0;
        } catch (NumberFormatException e) {
            throw notFound(iaParams, "'" + words[1] + "' is not a port number");
        }
        String name = words[0];
        for (DevicePort port : ports) {
            if (port.deviceName().equals(name) && (portNumber == 0 || port.port() == portNumber)) {
                return port;
            }
        }
        List<InetAddress> addresses = addressesOf(name);
        if (addresses.isEmpty()) {
            throw notFound(iaParams, "'" + name + "' is no usable RDMA device, no netdev and no address of this host");
        }
        for (InetAddress address : addresses) {
            for (DevicePort port : ports) {
                if (port.address().equals(address)) {
                    return port;
                }
            }
        }
        for (InetAddress address : addresses) {
            String landed = Discovery.portOf(verbs, address);
            for (DevicePort port : ports) {
                if ((port.deviceName() + "/" + port.port()).equals(landed)) {
                    return port.at(address);
                }
            }
        }
        throw notFound(iaParams, "'" + name + "' has no address on an active RDMA port (" + addresses + ")");
    }

    /** The addresses of a netdev, or of an address or host name, IPv4 first; empty when neither. */
    private static List<InetAddress> addressesOf(String name) {
        List<InetAddress> found = new ArrayList<>();
        try {
            NetworkInterface nif = NetworkInterface.getByName(name);
            if (nif != null) {
                found.addAll(Collections.list(nif.getInetAddresses()));
            }
        } catch (SocketException e) {
            // not a netdev we can read
        }
        if (found.isEmpty()) {
            try {
                for (InetAddress address : InetAddress.getAllByName(name)) {
                    found.add(address);
                }
            } catch (UnknownHostException e) {
                return List.of();
            }
        }
        found.sort((a, b) -> Boolean.compare(!(a instanceof Inet4Address), !(b instanceof Inet4Address)));
        return found;
    }

    private static DatException notFound(String iaParams, String why) {
        return DatException.of(DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED, "instanceData",
                "ia_params \"" + iaParams + "\": " + why);
    }
}
