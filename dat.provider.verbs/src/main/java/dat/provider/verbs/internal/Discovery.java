package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dat.provider.verbs.internal.ffi.Errno;
import dat.provider.verbs.internal.ffi.NativeException;
import dat.provider.verbs.internal.ffi.Structs;
import dat.provider.verbs.internal.ffi.Verbs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds the usable RDMA device ports: every device of {@code ibv_get_device_list}, opened and
 * queried, every port in the {@code IBV_PORT_ACTIVE} state, and for each the IP address that
 * rdma_cm maps to it (found by binding a synchronous {@code rdma_cm_id} to each local address and
 * reading which device and port it landed on). No RDMA in the kernel ({@code NULL} + ENOSYS), no
 * device (an empty list), and no address on a device's netdev are all answered with a reason,
 * never an exception.
 */
@SuppressWarnings("restricted") // an id's verbs context is given its C size
final class Discovery {

    private Discovery() {
    }

    /** @param ports the usable ports; @param reason why there is none, or {@code null} */
    record Result(List<DevicePort> ports, String reason) {
    }

    private static final int IBV_PORT_ACTIVE = 4;
    private static final int IBV_LINK_LAYER_ETHERNET = 2;
    private static final int IBV_DEVICE_MEM_WINDOW = 1 << 17;
    private static final int IBV_DEVICE_MEM_WINDOW_TYPE_2A = 1 << 23;
    private static final int IBV_DEVICE_MEM_WINDOW_TYPE_2B = 1 << 24;

    static Result discover(Verbs verbs) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment[] devices;
            try {
                devices = verbs.deviceList(arena);
            } catch (NativeException e) {
                String why = e.errno() == Errno.ENOSYS
                        ? "the kernel has no RDMA support (ibv_get_device_list: " + Errno.describe(e.errno()) + ")"
                        : "ibv_get_device_list failed: " + Errno.describe(e.errno());
                return new Result(List.of(), why);
            }
            if (devices.length == 0) {
                return new Result(List.of(), "no RDMA device (ibv_get_device_list returned an empty list)");
            }
            Map<String, Integer> inactive = new LinkedHashMap<>();
            List<PortCandidate> candidates = new ArrayList<>();
            for (MemorySegment device : devices) {
                String name = verbs.deviceName(device);
                MemorySegment context;
                try {
                    context = verbs.openDevice(device);
                } catch (NativeException e) {
                    inactive.put(name + " (" + e.getMessage() + ")", 0);
                    continue;
                }
                try {
                    MemorySegment deviceAttr = arena.allocate(Structs.IBV_DEVICE_ATTR);
                    verbs.queryDevice(context, deviceAttr);
                    int ports = Byte.toUnsignedInt(deviceAttr.get(JAVA_BYTE, Structs.DEVICE_ATTR_PHYS_PORT_CNT));
                    int caps = deviceAttr.get(JAVA_INT, Structs.DEVICE_ATTR_CAP_FLAGS);
                    int windows = deviceAttr.get(JAVA_INT, Structs.DEVICE_ATTR_MAX_MW) <= 0 ? 0
                            : (caps & (IBV_DEVICE_MEM_WINDOW_TYPE_2A | IBV_DEVICE_MEM_WINDOW_TYPE_2B)) != 0 ? 2
                            : (caps & IBV_DEVICE_MEM_WINDOW) != 0 ? 1 : 0;
                    boolean atomics = deviceAttr.get(JAVA_INT, Structs.DEVICE_ATTR_ATOMIC_CAP) != 0;
                    boolean rdmaRead = deviceAttr.get(JAVA_INT, Structs.DEVICE_ATTR_MAX_QP_RD_ATOM) > 0
                            && deviceAttr.get(JAVA_INT, Structs.DEVICE_ATTR_MAX_QP_INIT_RD_ATOM) > 0;
                    boolean srq = deviceAttr.get(JAVA_INT, Structs.DEVICE_ATTR_MAX_SRQ) > 0;
                    MemorySegment portAttr = arena.allocate(Structs.IBV_PORT_ATTR);
                    for (int port = 1; port <= ports; port++) {
                        verbs.queryPort(context, port, portAttr);
                        if (portAttr.get(JAVA_INT, Structs.PORT_ATTR_STATE) != IBV_PORT_ACTIVE) {
                            inactive.put(name + " port " + port + " not active", port);
                            continue;
                        }
                        String transport = portAttr.get(JAVA_BYTE, Structs.PORT_ATTR_LINK_LAYER) == IBV_LINK_LAYER_ETHERNET
                                ? "roce" : "ib";
                        candidates.add(new PortCandidate(name, port, transport, windows, atomics, rdmaRead, srq));
                    }
                } catch (NativeException e) {
                    inactive.put(name + " (" + e.getMessage() + ")", 0);
                } finally {
                    verbs.closeDevice(context);
                }
            }
            Map<String, InetAddress> addresses = addressesByPort(verbs);
            List<DevicePort> usable = new ArrayList<>();
            for (PortCandidate c : candidates) {
                InetAddress address = addresses.get(c.device + "/" + c.port);
                if (address == null) {
                    inactive.put(c.device + " port " + c.port + " has no IP address on its netdev (rdma_cm cannot use it)", c.port);
                } else {
                    usable.add(new DevicePort(c.device, c.port, address, c.transport, c.windows, c.atomics, c.rdmaRead, c.srq));
                }
            }
            String reason = usable.isEmpty() ? "no usable RDMA port: " + String.join("; ", inactive.keySet()) : null;
            return new Result(List.copyOf(usable), reason);
        }
    }

    private record PortCandidate(String device, int port, String transport, int windows, boolean atomics, boolean rdmaRead,
            boolean srq) {
    }

    /** Binds an rdma_cm id to each local address: "device/port" to the first (IPv4 first) address mapped to it. */
    private static Map<String, InetAddress> addressesByPort(Verbs verbs) {
        List<InetAddress> locals = new ArrayList<>();
        try {
            for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (nif.isUp()) {
                    locals.addAll(Collections.list(nif.getInetAddresses()));
                }
            }
        } catch (SocketException e) {
            return Map.of();
        }
        locals.sort((a, b) -> Boolean.compare(!(a instanceof Inet4Address), !(b instanceof Inet4Address)));
        Map<String, InetAddress> byPort = new LinkedHashMap<>();
        for (InetAddress address : locals) {
            String port = portOf(verbs, address);
            if (port != null) {
                byPort.putIfAbsent(port, address);
            }
        }
        return byPort;
    }

    /**
     * Which device port rdma_cm maps a local address to: binds a synchronous {@code rdma_cm_id}
     * to it and reads the device and port it landed on.
     *
     * @return {@code "device/port"}, or {@code null} when the address is on no RDMA netdev
     */
    static String portOf(Verbs verbs, InetAddress address) {
        MemorySegment id;
        try {
            id = verbs.createId(MemorySegment.NULL, 0);
        } catch (NativeException e) {
            return null;
        }
        try (Arena arena = Arena.ofConfined()) {
            verbs.bindAddr(id, Sockaddr.of(arena, address, 0));
            MemorySegment context = id.get(ADDRESS, Structs.CM_ID_VERBS);
            if (context.equals(MemorySegment.NULL)) {
                return null;
            }
            MemorySegment device = context.reinterpret(Structs.IBV_CONTEXT.byteSize()).get(ADDRESS, Structs.CONTEXT_DEVICE);
            int port = Byte.toUnsignedInt(id.get(JAVA_BYTE, Structs.CM_ID_PORT_NUM));
            return verbs.deviceName(device) + "/" + port;
        } catch (NativeException notRdma) {
            return null; // this address is on no RDMA netdev
        } finally {
            verbs.destroyId(id);
        }
    }
}
