package dat.tests.conformance.rdma;

import dat.api.DatEvent;
import dat.api.DatReturn;
import dat.api.DtoCompletionStatus;
import dat.api.EpState;
import dat.tests.conformance.internal.Connection;
import dat.tests.conformance.internal.IaUnderTest;

/** Checks of RDMA operations the target refuses (through an LMR's context here, through an RMR's in {@code rmr}). */
public final class RemoteAccess {

    private RemoteAccess() {
    }

    /**
     * A provider whose transport cannot answer a refused RDMA operation with an error (it breaks
     * the connection instead) declares the status the operation completes with as
     * {@code "<status name>: <why>"} under this deviation name; the requester's Endpoint must then
     * end disconnected.
     */
    public static final String REMOTE_ACCESS_ERROR = "remote_access_error";

    /**
     * An RDMA operation whose remote buffer the target refuses: the local provider may refuse it
     * at once, when it can tell (the page's DAT_PROTECTION_VIOLATION / DAT_PRIVILEGES_VIOLATION),
     * or the DTO completes with DAT_DTO_ERR_REMOTE_ACCESS when the target checks it.
     */
    public static void expectRefused(IaUnderTest t, Connection c, int code, int syncType, String what) {
        if (code != DatReturn.SUCCESS) {
            t.check(DatReturn.typeOf(code) == syncType || DatReturn.typeOf(code) == DatReturn.PRIVILEGES_VIOLATION
                    || DatReturn.typeOf(code) == DatReturn.PROTECTION_VIOLATION, what + ": expected " + DatReturn.typeName(syncType)
                    + " at once or DAT_DTO_ERR_REMOTE_ACCESS in the completion, got " + DatReturn.describe(code));
            return;
        }
        expectRefusedCompletion(t, c, t.completion(c.active.requestEvd, what), what);
    }

    /**
     * A provider whose target cannot tell the PZs of its memory apart (libfabric providers that
     * choose the keys and register all of an IA's memory in one protection domain) declares that
     * an RDMA operation through an Endpoint of another PZ completes, as {@code "DAT_DTO_SUCCESS: <why>"}
     * under this deviation name.
     */
    public static final String REMOTE_PZ = "remote_pz";

    /**
     * An RDMA operation through an Endpoint of another PZ than the target memory's (the page's
     * DAT_PROTECTION_VIOLATION): refused as {@link #expectRefused} checks, or, where the provider
     * declares {@link #REMOTE_PZ}, completed successfully as it declares.
     */
    public static void expectRefusedOtherPz(IaUnderTest t, Connection c, int code, String what) {
        if (code != DatReturn.SUCCESS) {
            expectRefused(t, c, code, DatReturn.PROTECTION_VIOLATION, what);
            return;
        }
        DatEvent completion = t.completion(c.active.requestEvd, what);
        if (completion.status() == DtoCompletionStatus.SUCCESS && t.declaresStatus(REMOTE_PZ, completion.status())) {
            t.skipAsDeclared(REMOTE_PZ, what + " completed with " + DtoCompletionStatus.name(completion.status()));
        }
        expectRefusedCompletion(t, c, completion, what);
    }

    private static void expectRefusedCompletion(IaUnderTest t, Connection c, DatEvent completion, String what) {
        String status = DtoCompletionStatus.name(completion.status());
        if (completion.status() != DtoCompletionStatus.ERR_REMOTE_ACCESS
                && t.declaresStatus(REMOTE_ACCESS_ERROR, completion.status())) {
            t.awaitState(c.active.ep, EpState.DISCONNECTED, "after " + what + " completed with " + status + " as declared");
            t.skipAsDeclared(REMOTE_ACCESS_ERROR, what + " completed with " + status);
        }
        t.check(completion.status() == DtoCompletionStatus.ERR_REMOTE_ACCESS, what + ": expected DAT_DTO_ERR_REMOTE_ACCESS, got "
                + status);
    }
}
