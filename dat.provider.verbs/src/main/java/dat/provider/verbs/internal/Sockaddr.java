package dat.provider.verbs.internal;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

import dat.provider.verbs.internal.ffi.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;

/** Conversions between {@link InetSocketAddress} and C {@code struct sockaddr_in}/{@code sockaddr_in6}. */
final class Sockaddr {

    private Sockaddr() {
    }

    private static final short AF_INET = 2;
    private static final short AF_INET6 = 10;

    /** Writes an address as a C sockaddr in {@code arena}; the port is in network byte order. */
    static MemorySegment of(Arena arena, InetAddress address, int port) {
        if (address instanceof Inet4Address) {
            MemorySegment sin = arena.allocate(Structs.SOCKADDR_IN);
            sin.set(JAVA_SHORT_UNALIGNED, Structs.SIN_FAMILY, AF_INET);
            sin.set(JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), Structs.SIN_PORT, (short) port);
            MemorySegment.copy(address.getAddress(), 0, sin, JAVA_BYTE, Structs.SIN_ADDR, 4);
            return sin;
        }
        MemorySegment sin6 = arena.allocate(Structs.SOCKADDR_IN6);
        sin6.set(JAVA_SHORT_UNALIGNED, 0, AF_INET6);
        sin6.set(JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), Structs.SIN6_PORT, (short) port);
        MemorySegment.copy(address.getAddress(), 0, sin6, JAVA_BYTE, Structs.SIN6_ADDR, 16);
        if (address instanceof Inet6Address v6) {
            sin6.set(JAVA_INT_UNALIGNED, Structs.SIN6_SCOPE_ID, v6.getScopeId());
        }
        return sin6;
    }

    /** Reads a C sockaddr (IPv4 or IPv6); {@code null} for another family. */
    static InetSocketAddress read(MemorySegment sockaddr) {
        short family = sockaddr.get(JAVA_SHORT_UNALIGNED, 0);
        try {
            if (family == AF_INET) {
                byte[] ip = new byte[4];
                MemorySegment.copy(sockaddr, JAVA_BYTE, Structs.SIN_ADDR, ip, 0, 4);
                int port = Short.toUnsignedInt(sockaddr.get(JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), Structs.SIN_PORT));
                return new InetSocketAddress(InetAddress.getByAddress(ip), port);
            }
            if (family == AF_INET6) {
                byte[] ip = new byte[16];
                MemorySegment.copy(sockaddr, JAVA_BYTE, Structs.SIN6_ADDR, ip, 0, 16);
                int port = Short.toUnsignedInt(sockaddr.get(JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), Structs.SIN6_PORT));
                return new InetSocketAddress(InetAddress.getByAddress(ip), port);
            }
        } catch (UnknownHostException impossible) {
            throw new IllegalStateException(impossible);
        }
        return null;
    }
}
