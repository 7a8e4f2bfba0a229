package dat.provider.ofi.internal;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;

import dat.provider.ofi.internal.ffi.Structs;
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

    static final short AF_INET = 2;
    static final short AF_INET6 = 10;
    /** Room for either form. */
    static final long MAX_SIZE = Structs.SOCKADDR_IN6.byteSize();

    /** Writes an address as a C sockaddr in {@code arena}; the port is in network byte order. */
    static MemorySegment of(Arena arena, InetAddress address, int port) {
        MemorySegment sockaddr = arena.allocate(address instanceof Inet4Address ? Structs.SOCKADDR_IN : Structs.SOCKADDR_IN6);
        write(sockaddr, address, port);
        return sockaddr;
    }

    /** Writes an address into a C sockaddr of the right size for its family. */
    static void write(MemorySegment sockaddr, InetAddress address, int port) {
        if (address instanceof Inet4Address) {
            sockaddr.set(JAVA_SHORT_UNALIGNED, Structs.SIN_FAMILY, AF_INET);
            sockaddr.set(JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), Structs.SIN_PORT, (short) port);
            MemorySegment.copy(address.getAddress(), 0, sockaddr, JAVA_BYTE, Structs.SIN_ADDR, 4);
            return;
        }
        sockaddr.set(JAVA_SHORT_UNALIGNED, 0, AF_INET6);
        sockaddr.set(JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), Structs.SIN6_PORT, (short) port);
        MemorySegment.copy(address.getAddress(), 0, sockaddr, JAVA_BYTE, Structs.SIN6_ADDR, 16);
        if (address instanceof Inet6Address v6) {
            sockaddr.set(JAVA_INT_UNALIGNED, Structs.SIN6_SCOPE_ID, v6.getScopeId());
        }
    }

    /** Sets the port of a C sockaddr of either family. */
    static void setPort(MemorySegment sockaddr, int port) {
        long at = sockaddr.get(JAVA_SHORT_UNALIGNED, 0) == AF_INET ? Structs.SIN_PORT : Structs.SIN6_PORT;
        sockaddr.set(JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), at, (short) port);
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
            if (family == AF_INET6 && sockaddr.byteSize() >= Structs.SOCKADDR_IN6.byteSize()) {
                byte[] ip = new byte[16];
                MemorySegment.copy(sockaddr, JAVA_BYTE, Structs.SIN6_ADDR, ip, 0, 16);
                int port = Short.toUnsignedInt(sockaddr.get(JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), Structs.SIN6_PORT));
                int scope = sockaddr.get(JAVA_INT_UNALIGNED, Structs.SIN6_SCOPE_ID);
                return new InetSocketAddress(Inet6Address.getByAddress(null, ip, scope), port);
            }
        } catch (UnknownHostException impossible) {
            throw new IllegalStateException(impossible);
        }
        return null;
    }
}
