package dat.management;

import java.util.Map;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The counters of one open IA as a JMX MXBean: the attributes of a
 * {@link dat.api.ext.IaStatisticsSnapshot}, read afresh at each access, plus who the IA is. Its
 * name is {@code dat:type=IA,name=<ia name>,instance=<n>} ({@link #objectName}), where {@code n}
 * counts the opens of that IA name since the management bundle started (from 1). The MXBean is
 * registered when the IA is opened through the registry (or when management starts, for IAs open
 * then) and unregistered soon after the IA closes or fails, and at once when its provider leaves
 * the registry. A provider that another provider of the same IA name outranks (a higher ranking, a
 * static entry) has not left: the MXBeans of its open IAs stay.
 *
 * <p>Maps are keyed by names: {@link dat.api.ext.Operation} names, {@code DAT_*} return type names,
 * {@code DAT_DTO_*} status names. JMX presents them as tabular data.
 */
@ProviderType
public interface IaStatisticsMXBean {

    /** The JMX domain of the DAT MXBeans: {@value}. */
    String DOMAIN = "dat";

    /** The {@code type} key of an IA's MXBean: {@value}. */
    String TYPE_IA = "IA";

    /**
     * The object name of an IA's MXBean: {@code dat:type=IA,name=<ia name>,instance=<n>}, the
     * name quoted when it holds characters an object name value cannot.
     *
     * @param iaName the IA name
     * @param instance the instance number
     * @return the object name
     * @throws IllegalArgumentException for a name JMX cannot take even quoted
     */
    static ObjectName objectName(String iaName, long instance) {
        String value = iaName.matches("[A-Za-z0-9_.\\-]+") ? iaName : ObjectName.quote(iaName);
        try {
            return new ObjectName(DOMAIN + ":type=" + TYPE_IA + ",name=" + value + ",instance=" + instance);
        } catch (MalformedObjectNameException e) {
            throw new IllegalArgumentException("no JMX name for IA '" + iaName + "'", e);
        }
    }

    /**
     * The pattern that matches the MXBeans of every IA: {@code dat:type=IA,*}.
     *
     * @return the pattern
     */
    static ObjectName allIas() {
        try {
            return new ObjectName(DOMAIN + ":type=" + TYPE_IA + ",*");
        } catch (MalformedObjectNameException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return the IA name */
    String getIaName();

    /** @return the name of the IA's provider ({@code dat.provider.name}) */
    String getProviderName();

    /** @return the {@code service.id} of the provider's IA factory service (negative outside OSGi) */
    long getProviderId();

    /** @return the instance number, as in the object name */
    long getInstance();

    /** @return whether the IA is still open */
    boolean isOpen();

    /** @return when counting started, ISO-8601 */
    String getSince();

    /** @return operations posted successfully */
    long getOperationsPosted();

    /** @return operations posted successfully, by {@link dat.api.ext.Operation} name */
    Map<String, Long> getOperationsPostedByKind();

    /** @return bytes of the operations posted successfully */
    long getBytesPosted();

    /** @return bytes of the operations posted successfully, by {@link dat.api.ext.Operation} name */
    Map<String, Long> getBytesPostedByKind();

    /** @return posts that returned an error */
    long getPostErrors();

    /** @return posts that returned an error, by return type name */
    Map<String, Long> getPostErrorsByType();

    /** @return DTO and RMR-bind completions */
    long getCompletions();

    /** @return bytes of the successful completions */
    long getCompletedBytes();

    /** @return completions in error, flushes included */
    long getCompletionErrors();

    /** @return completions in error, by status name */
    Map<String, Long> getCompletionErrorsByStatus();

    /** @return completions flushed */
    long getFlushed();

    /** @return asynchronous errors */
    long getAsyncErrors();
}
