package dat.provider.verbs.internal;

import dat.api.DatReturn;

/**
 * DAT connection qualifiers as rdma_cm ports (the TCP port space), mapped as OFED uDAPL's cma
 * provider maps them, so that a C uDAPL peer and this provider reach each other's Service Points:
 * a qualifier up to 65535 is the port itself, a larger one (an unsigned 64-bit value) is
 * {@code (qualifier % 32001) + 33534}. Two qualifiers that map to one port share it: the second
 * Service Point finds it in use, as in OFED.
 */
final class ConnQual {

    /** OFED's {@code IB_PORT_MOD}. */
    static final int PORT_MOD = 32001;

    /** OFED's {@code IB_PORT_BASE}: {@code 65535 - IB_PORT_MOD}. */
    static final int PORT_BASE = 65535 - PORT_MOD;

    private ConnQual() {
    }

    /**
     * The rdma_cm port of a qualifier.
     *
     * @param qualifier a DAT connection qualifier, unsigned, not 0
     * @return its port, 1..65535
     */
    static int port(long qualifier) {
        if (Long.compareUnsigned(qualifier, 0xFFFF) > 0) {
            return (int) Long.remainderUnsigned(qualifier, PORT_MOD) + PORT_BASE;
        }
        return (int) qualifier;
    }

    /**
     * Refuses qualifier 0, which rdma_cm would take for "any port": nobody could connect to it.
     *
     * @param qualifier the qualifier
     * @param argSubtype its argument's {@code DAT_INVALID_ARG*} subtype
     * @param argument its name
     */
    static void check(long qualifier, int argSubtype, String argument) {
        if (qualifier == 0) {
            throw Codes.invalidParameterException(argSubtype, argument,
                    "qualifier 0 names no rdma_cm port (dat_psp_create_any allocates one)");
        }
    }
}
