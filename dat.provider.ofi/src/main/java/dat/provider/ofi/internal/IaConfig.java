package dat.provider.ofi.internal;

import dat.api.DatReturn;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;

/**
 * Which libfabric provider, domain and address an IA uses. A discovered IA has its own; a
 * {@code dat.conf} entry chooses through its {@code ia_params}, blank-separated {@code key=value}
 * pairs, each optional (the factory the entry binds to fills in the rest):
 *
 * <pre>
 * ofiA  u1.2  threadsafe  default  ofi  1.0  "provider=tcp domain=lo address=127.0.0.1"  ""
 * ofiB  u1.2  threadsafe  default  ofi  1.0  "address=10.77.0.2"  ""
 * </pre>
 *
 * An entry that names a provider or an address but no domain takes whichever domain of that
 * provider has the address.
 *
 * @param provider the libfabric provider ({@code fabric_attr->prov_name}), for example {@code tcp}
 * @param domain the domain ({@code domain_attr->name}), for example {@code lo} or {@code eth0}; {@code null}
 *     for any domain that has the address
 * @param address the IA's address: connection qualifiers are its ports
 */
record IaConfig(String provider, String domain, InetAddress address) {

    /** The IA name of a discovered provider and domain: {@code ofi-<provider>-<domain>}. */
    String iaName() {
        return "ofi-" + provider + "-" + domain;
    }

    /**
     * This configuration with the {@code ia_params} of a {@code dat.conf} entry applied.
     *
     * @throws dat.api.DatException {@code DAT_INVALID_PARAMETER} for a malformed parameter,
     *     {@code DAT_PROVIDER_NOT_FOUND} for a libfabric provider that is never offered
     *     ({@link Discovery#REFUSED})
     */
    IaConfig with(String iaParams) {
        String provider = this.provider;
        String domain = this.domain;
        InetAddress address = this.address;
        boolean domainNamed = false;
        boolean otherNamed = false;
        for (String pair : iaParams.trim().split("\\s+")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            if (eq <= 0 || eq == pair.length() - 1) {
                throw Codes.invalidParameterException(DatReturn.INVALID_ARG1, "ia_params",
                        "'" + pair + "' is not key=value (keys: provider, domain, address)");
            }
            String key = pair.substring(0, eq).toLowerCase(Locale.ROOT);
            String value = pair.substring(eq + 1);
            switch (key) {
                case "provider" -> {
                    provider = value;
                    otherNamed = true;
                    String refused = Discovery.REFUSED.get(value.toLowerCase(Locale.ROOT));
                    if (refused != null) {
                        throw Codes.exception(DatReturn.PROVIDER_NOT_FOUND, DatReturn.NAME_NOT_REGISTERED, "ia_params", refused);
                    }
                }
                case "domain" -> {
                    domain = value;
                    domainNamed = true;
                }
                case "address" -> {
                    address = parseAddress(value);
                    otherNamed = true;
                }
                default -> throw Codes.invalidParameterException(DatReturn.INVALID_ARG1, "ia_params",
                        "unknown key '" + key + "' (keys: provider, domain, address)");
            }
        }
        return new IaConfig(provider, otherNamed && !domainNamed ? null : domain, address);
    }

    private static InetAddress parseAddress(String value) {
        String literal = value.startsWith("[") && value.endsWith("]") ? value.substring(1, value.length() - 1) : value;
        if (!literal.matches("[0-9a-fA-F:.%]+")) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG1, "ia_params", "address '" + value
                    + "' is not a numeric IP address");
        }
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw Codes.invalidParameterException(DatReturn.INVALID_ARG1, "ia_params", "address '" + value + "': " + e.getMessage());
        }
    }
}
