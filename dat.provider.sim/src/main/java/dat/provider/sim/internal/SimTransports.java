package dat.provider.sim.internal;

import dat.provider.sim.internal.core.SimLimits;
import dat.provider.sim.internal.core.SimProvider;
import dat.provider.sim.internal.core.Transport;
import dat.provider.sim.internal.fabric.FabricTransport;
import dat.provider.sim.internal.shm.ShmMode;
import dat.provider.sim.internal.tcp.TcpTransport;
import java.net.InetSocketAddress;

/**
 * The wires the sim provider has: the in-JVM fabric, and TCP for the IAs configured with {@code tcp=},
 * with shared memory between TCP IAs on one host where their {@code shm} mode allows.
 */
final class SimTransports implements Transport.Factory {

    @Override
    public Transport inJvm(SimProvider provider) {
        return new FabricTransport(provider);
    }

    @Override
    public Transport.Bound tcp(InetSocketAddress bind, SimLimits limits, String adapterName, long timeoutMs, long spinMicros, String shm) {
        return new TcpTransport(bind, limits, adapterName, timeoutMs == 0 ? TcpTransport.DEFAULT_TIMEOUT_MS : timeoutMs,
                spinMicros < 0 ? TcpTransport.DEFAULT_SPIN_MICROS : spinMicros, ShmMode.parse(shm));
    }
}
