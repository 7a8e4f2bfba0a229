package dat.switching;

import org.osgi.annotation.versioning.ProviderType;

/**
 * What became of the data transfer operations an application posted on an IA it leaves, as
 * {@link IaSession#lost} reports it: every posted operation should have completed, successfully or
 * not (flushed, for those the provider's departure cut off), so that none is lost silently.
 *
 * @param posted the operations posted successfully (the post returned {@code DAT_SUCCESS})
 * @param completed the completions reaped with {@code DAT_DTO_SUCCESS}
 * @param flushed the completions reaped with {@code DAT_DTO_ERR_FLUSHED}
 * @param failed the completions reaped with any other error status
 */
@ProviderType
public record Accounting(long posted, long completed, long flushed, long failed) {

    /** Nothing posted, nothing reaped. */
    public static final Accounting NONE = new Accounting(0, 0, 0, 0);

    /**
     * The posted operations whose completion was never reaped: 0 when every one is accounted for.
     *
     * @return {@code posted - completed - flushed - failed}
     */
    public long unaccounted() {
        return posted - completed - flushed - failed;
    }

    /**
     * Whether every posted operation completed, one way or the other.
     *
     * @return {@code unaccounted() == 0}
     */
    public boolean balanced() {
        return unaccounted() == 0;
    }

    @Override
    public String toString() {
        return "posted " + posted + ", completed " + completed + ", flushed " + flushed + ", failed " + failed
                + ", unaccounted " + unaccounted();
    }
}
