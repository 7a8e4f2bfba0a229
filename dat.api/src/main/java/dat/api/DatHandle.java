package dat.api;

import java.util.Optional;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A DAT object handle ({@code DAT_HANDLE}): the common part of every DAT object. Every handle is
 * {@link AutoCloseable}; {@link #close()} is the object's {@code dat_*_free} (for the IA,
 * {@code dat_ia_close} with {@link CloseFlag#ABRUPT}).
 *
 * <p>After a handle is freed, or after its IA closed or failed, every method that is a DAT call
 * answers {@link DatReturn#INVALID_HANDLE}, before it looks at its other arguments: the control
 * path throws a {@link DatException} with that type, the data path returns the code (an EVD of an
 * IA that failed still hands out the events it held: dat_evd_dequeue(3DAT)). The accessors
 * of what was fixed at creation (an IA's name, an LMR's contexts, registered range and memory, a
 * PSP's qualifier) keep answering, so that a consumer can still name what it freed. Freeing a
 * handle that is already freed is a no-op, so that try-with-resources blocks nest without care.
 *
 * <p>See dat_get_handle_type(3DAT), dat_set_consumer_context(3DAT),
 * dat_get_consumer_context(3DAT).
 */
@ProviderType
public interface DatHandle extends AutoCloseable {

    /**
     * The type of this handle: {@code dat_get_handle_type(3DAT)}.
     *
     * @return the handle type
     * @throws DatException {@link DatReturn#INVALID_HANDLE} if the handle was freed
     */
    HandleType handleType();

    /**
     * The consumer context stored with this handle: {@code dat_get_consumer_context(3DAT)}.
     *
     * @return the context, or {@code null} when none was set
     * @throws DatException {@link DatReturn#INVALID_HANDLE} if the handle was freed
     */
    Object consumerContext();

    /**
     * Stores a consumer context with this handle, replacing the previous one:
     * {@code dat_set_consumer_context(3DAT)}. The provider never looks at it and does not
     * synchronize access to it.
     *
     * @param context the context, or {@code null} to remove it
     * @throws DatException {@link DatReturn#INVALID_HANDLE} if the handle was freed
     */
    void setConsumerContext(Object context);

    /**
     * Whether this handle can still be used: it was not freed, and its IA is neither closed nor
     * failed. A Java convenience with no C counterpart.
     *
     * @return {@code true} while the handle is valid
     */
    boolean isOpen();

    /**
     * A typed extension of this object beyond DAT 1.2 that its provider offers (for example
     * atomic operations on an Endpoint). The answer is empty, never an exception, for an
     * extension the provider does not offer. A freed handle answers as it did while open; an
     * Endpoint extension's posts then answer {@link DatReturn#INVALID_HANDLE}, as the Endpoint's do.
     *
     * @param <T> the extension type
     * @param type the extension interface
     * @return the extension, or empty
     */
    default <T> Optional<T> extension(Class<T> type) {
        return Optional.empty();
    }

    /**
     * Frees the object: its {@code dat_*_free} function. A second call does nothing.
     *
     * @throws DatException with the code of the object's free function, for example
     *     {@link DatReturn#INVALID_STATE} when the object is still in use
     */
    @Override
    void close();
}
