package dat.switching;

import dat.api.DtoCompletionStatus;
import java.util.concurrent.atomic.LongAdder;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A ledger an application keeps per IA of the operations it posts and the completions it reaps,
 * from which it answers {@link IaSession#lost} with an {@link Accounting}. Recording costs a
 * striped add (no lock, no allocation once warm), so it fits the data path.
 *
 * {@snippet :
 * if (ep.postSend(1, iov, cookie, CompletionFlags.DEFAULT) == DatReturn.SUCCESS) {
 *     ledger.posted();
 * }
 * // ... on each DTO completion reaped:
 * ledger.completed(event.status());
 * }
 *
 * @ThreadSafe every method may be called from any thread
 */
@ProviderType
public final class DtoLedger {

    private final LongAdder posted = new LongAdder();
    private final LongAdder completed = new LongAdder();
    private final LongAdder flushed = new LongAdder();
    private final LongAdder failed = new LongAdder();

    /** Creates an empty ledger. */
    public DtoLedger() {
    }

    /** Records one operation posted successfully. */
    public void posted() {
        posted.increment();
    }

    /**
     * Records one completion reaped.
     *
     * @param status its {@link DtoCompletionStatus}
     */
    public void completed(int status) {
        if (status == DtoCompletionStatus.SUCCESS) {
            completed.increment();
        } else if (status == DtoCompletionStatus.ERR_FLUSHED) {
            flushed.increment();
        } else {
            failed.increment();
        }
    }

    /**
     * The operations posted and not yet completed.
     *
     * @return the outstanding count
     */
    public long outstanding() {
        return accounting().unaccounted();
    }

    /**
     * The ledger now.
     *
     * @return the accounting
     */
    public Accounting accounting() {
        long c = completed.sum();
        long f = flushed.sum();
        long x = failed.sum();
        return new Accounting(posted.sum(), c, f, x);
    }
}
