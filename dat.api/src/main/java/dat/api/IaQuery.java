package dat.api;

import org.osgi.annotation.versioning.ProviderType;

/**
 * What dat_ia_query(3DAT) returns: the async EVD and the IA and provider attributes.
 *
 * @param asyncEvd the IA's asynchronous EVD, or {@link EventDispatcher#OUT_OF_SCOPE} when the
 *     IA was opened with {@link EventDispatcher#ASYNC_EXISTS}
 * @param iaAttributes the IA attributes
 * @param providerAttributes the provider attributes
 */
@ProviderType
public record IaQuery(EventDispatcher asyncEvd, IaAttributes iaAttributes, ProviderAttributes providerAttributes) {
}
