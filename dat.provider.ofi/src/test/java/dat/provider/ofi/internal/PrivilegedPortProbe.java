package dat.provider.ofi.internal;

import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.EventDispatcher;
import dat.api.EvdFlags;
import dat.api.InterfaceAdapter;
import dat.api.PspFlag;
import dat.api.spi.DatIaFactory;
import dat.api.spi.IaOpenRequest;
import dat.provider.ofi.internal.ffi.Fabric;
import java.util.Set;

/**
 * The process of {@link PrivilegedQualifierTest}, run without the privilege to bind low ports:
 * opens {@code ofi-tcp-lo}, asks for a PSP on the qualifier of its argument, and prints what
 * {@code dat_psp_create} answered ({@code CODE <description>}, or {@code CREATED}).
 */
public final class PrivilegedPortProbe {

    private PrivilegedPortProbe() {
    }

    public static void main(String[] args) {
        OfiRuntime runtime = OfiRuntime.start(Fabric.LIBFABRIC, Set.of("tcp"));
        DatIaFactory factory = runtime.factories().stream().filter(f -> TcpLoopback.IA.equals(f.properties().get("dat.ia.name")))
                .findFirst().orElseThrow(() -> new IllegalStateException("no " + TcpLoopback.IA + ": " + runtime.unavailableReason()));
        try (InterfaceAdapter ia = factory.openIa(new IaOpenRequest(TcpLoopback.IA, 16, null, ""))) {
            EventDispatcher events = ia.createEventDispatcher(16, null, EvdFlags.CR);
            try {
                ia.createPublicServicePoint(Long.parseLong(args[0]), events, PspFlag.CONSUMER).close();
                System.out.println("CREATED");
            } catch (DatException e) {
                System.out.println("CODE " + DatReturn.describe(e.code()));
            }
        } finally {
            runtime.close();
        }
    }
}
