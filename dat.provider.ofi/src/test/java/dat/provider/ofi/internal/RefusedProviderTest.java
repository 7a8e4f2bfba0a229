package dat.provider.ofi.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.spi.IaOpenRequest;
import dat.provider.ofi.internal.ffi.Fabric;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * libfabric's sockets provider answers {@code fi_getinfo} for {@code FI_EP_MSG} but is never
 * offered: named alone in {@code dat.ofi.providers} it gives no IA and says why, named beside tcp
 * only tcp's IAs come, and a {@code dat.conf} entry naming it is refused before libfabric opens
 * anything of it.
 */
class RefusedProviderTest {

    @Test
    void socketsAloneGivesNoIaAndSaysWhy() {
        try (OfiRuntime runtime = OfiRuntime.start(Fabric.LIBFABRIC, Set.of("sockets"))) {
            assumeTrue(runtime.unavailableReason() == null || !runtime.unavailableReason().contains("cannot be loaded"),
                    "libfabric missing");
            assertThat(runtime.factories()).isEmpty();
            assertThat(runtime.unavailableReason()).startsWith(Discovery.REFUSED.get("sockets"));
        }
    }

    @Test
    void socketsBesideTcpLeavesTcpsIasAlone() {
        try (OfiRuntime runtime = OfiRuntime.start(Fabric.LIBFABRIC, Set.of("tcp", "sockets"))) {
            assumeTrue(!runtime.factories().isEmpty(), () -> "libfabric tcp unavailable: " + runtime.unavailableReason());
            assertThat(runtime.factories()).allSatisfy(f -> assertThat(f.properties().get("dat.ia.name")).asString().startsWith("ofi-tcp-"));
        }
    }

    @Test
    void aDatConfEntryNamingSocketsIsRefused() {
        try (OfiRuntime runtime = TcpLoopback.start()) {
            var factory = TcpLoopback.factory(runtime);
            assertThatThrownBy(() -> factory.init(null, "provider=sockets")).isInstanceOfSatisfying(DatException.class,
                    e -> assertThat(e.type()).isEqualTo(DatReturn.PROVIDER_NOT_FOUND));
            assertThatThrownBy(() -> factory.openIa(new IaOpenRequest("ofiS", 16, null, "provider=sockets address=127.0.0.1")))
                    .isInstanceOfSatisfying(DatException.class, e -> {
                        assertThat(e.code()).isEqualTo(DatReturn.error(DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED));
                        assertThat(e.argument()).isEqualTo("ia_params");
                    });
        }
    }
}
