package dat.provider.sim.internal.core;

import dat.api.DatException;
import dat.api.DatReturn;
import dat.api.Qos;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The limits of one simulated IA, as its attributes report them and as they are enforced, plus
 * its address. Built from the provider's configuration, then overridden by the {@code ia_params}
 * of a static registry entry.
 *
 * <p>The {@code ia_params} syntax: {@code key=value} pairs separated by blanks, commas or
 * semicolons, for example {@code "addr=127.77.1.9 max_eps=64 qos=best_effort|low_latency"} (the
 * {@code qos} value takes {@code |} or {@code +} between its names). Keys: {@code addr} (an IPv4 or
 * IPv6 literal, optionally {@code :port}), {@code max_eps}, {@code max_evds}, {@code max_evd_qlen},
 * {@code max_lmrs}, {@code max_pzs}, {@code max_rmrs}, {@code max_srqs}, {@code max_cnos},
 * {@code max_dto_per_ep}, {@code max_iov}, {@code max_private_data}, {@code max_message_size},
 * {@code max_rdma_size}, {@code max_rdma_read_per_ep}, {@code max_recv_per_srq},
 * {@code max_ep_per_srq}, {@code qos}. An unknown key or a bad value is
 * {@link DatReturn#INVALID_PARAMETER}.
 */
public record SimLimits(
        InetSocketAddress address,
        int maxEps,
        int maxEvds,
        int maxEvdQlen,
        int maxLmrs,
        int maxPzs,
        int maxRmrs,
        int maxSrqs,
        int maxCnos,
        int maxDtoPerEp,
        int maxIov,
        int maxPrivateData,
        long maxMessageSize,
        long maxRdmaSize,
        int maxRdmaReadPerEp,
        int maxRecvPerSrq,
        int maxEpPerSrq,
        int qosSupported) {

    /** QoS values the in-JVM fabric serves (all the same way: it has one class of service). */
    public static final int DEFAULT_QOS = Qos.BEST_EFFORT | Qos.HIGH_THROUGHPUT | Qos.LOW_LATENCY;

    /** Private data the fabric carries; the pages require at least 64 bytes. */
    public static final int DEFAULT_PRIVATE_DATA = 256;

    /**
     * The largest max_private_data an IA can have. A peer may send up to its own maximum, which
     * the receiver does not know, so TCP frames carry private data up to this: small, since a
     * request's private data is allocated before the request is known to be good.
     */
    public static final int MAX_PRIVATE_DATA = 4096;

    public SimLimits {
        if (maxPrivateData > MAX_PRIVATE_DATA) {
            throw new IllegalArgumentException("max_private_data " + maxPrivateData + " is over " + MAX_PRIVATE_DATA);
        }
    }

    public static SimLimits defaults() {
        return new SimLimits(null, 4096, 4096, 1 << 20, 1 << 16, 1024, 1 << 16, 256, 256, 1 << 16, 64,
                DEFAULT_PRIVATE_DATA, 1L << 30, 1L << 30, 64, 1 << 16, 4096, DEFAULT_QOS);
    }

    /** The IOV segments of default Endpoint attributes and SRQs: 8, or fewer when the IA has fewer. */
    public int defaultIov() {
        return Math.min(8, maxIov);
    }

    SimLimits withAddress(InetSocketAddress newAddress) {
        return new SimLimits(newAddress, maxEps, maxEvds, maxEvdQlen, maxLmrs, maxPzs, maxRmrs, maxSrqs, maxCnos,
                maxDtoPerEp, maxIov, maxPrivateData, maxMessageSize, maxRdmaSize, maxRdmaReadPerEp, maxRecvPerSrq,
                maxEpPerSrq, qosSupported);
    }

    /**
     * Applies {@code ia_params} to these limits.
     *
     * @param iaParams the parameters, may be empty
     * @return the new limits
     * @throws DatException {@link DatReturn#INVALID_PARAMETER} for a bad key or value
     */
    SimLimits withParams(String iaParams) {
        Map<String, String> params = parse(iaParams);
        if (params.isEmpty()) {
            return this;
        }
        InetSocketAddress addr = params.containsKey("addr") ? parseAddress(params.remove("addr")) : address;
        int privateData = intParam(params, "max_private_data", maxPrivateData);
        if (privateData < 64 || privateData > MAX_PRIVATE_DATA) {
            throw bad("max_private_data must be 64 (dat_ia_query) to " + MAX_PRIVATE_DATA + ", was " + privateData);
        }
        int qos = params.containsKey("qos") ? parseQos(params.remove("qos")) : qosSupported;
        SimLimits l = new SimLimits(addr,
                intParam(params, "max_eps", maxEps),
                intParam(params, "max_evds", maxEvds),
                intParam(params, "max_evd_qlen", maxEvdQlen),
                intParam(params, "max_lmrs", maxLmrs),
                intParam(params, "max_pzs", maxPzs),
                intParam(params, "max_rmrs", maxRmrs),
                intParam(params, "max_srqs", maxSrqs),
                intParam(params, "max_cnos", maxCnos),
                intParam(params, "max_dto_per_ep", maxDtoPerEp),
                intParam(params, "max_iov", maxIov),
                privateData,
                longParam(params, "max_message_size", maxMessageSize),
                longParam(params, "max_rdma_size", maxRdmaSize),
                intParam(params, "max_rdma_read_per_ep", maxRdmaReadPerEp),
                intParam(params, "max_recv_per_srq", maxRecvPerSrq),
                intParam(params, "max_ep_per_srq", maxEpPerSrq),
                qos);
        if (!params.isEmpty()) {
            throw bad("unknown ia_params key(s) " + params.keySet());
        }
        return l;
    }

    static Map<String, String> parse(String iaParams) {
        Map<String, String> result = new LinkedHashMap<>();
        if (iaParams == null || iaParams.isBlank()) {
            return result;
        }
        String text = iaParams.strip();
        if (text.length() >= 2 && text.charAt(0) == '"' && text.charAt(text.length() - 1) == '"') {
            text = text.substring(1, text.length() - 1);
        }
        for (String token : text.split("[\\s,;]+")) {
            if (token.isEmpty()) {
                continue;
            }
            int eq = token.indexOf('=');
            if (eq <= 0) {
                throw bad("ia_params token '" + token + "' is not key=value");
            }
            result.put(token.substring(0, eq).toLowerCase(Locale.ROOT), token.substring(eq + 1));
        }
        return result;
    }

    static InetSocketAddress parseAddress(String text) {
        String host = text;
        int port = 0;
        int colon = text.lastIndexOf(':');
        if (text.startsWith("[")) {
            int close = text.indexOf(']');
            if (close < 0) {
                throw bad("bad address '" + text + "'");
            }
            host = text.substring(1, close);
            if (close + 1 < text.length()) {
                port = parsePort(text.substring(close + 2), text);
            }
        } else if (colon > 0 && text.indexOf(':') == colon) {
            host = text.substring(0, colon);
            port = parsePort(text.substring(colon + 1), text);
        }
        if (!host.matches("[0-9a-fA-F:.]+")) {
            throw bad("address '" + text + "' must be a numeric IP literal");
        }
        try {
            return new InetSocketAddress(InetAddress.getByName(host), port);
        } catch (UnknownHostException e) {
            throw new DatException(DatReturn.error(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2), "ia_params",
                    "bad address '" + text + "'", e);
        }
    }

    private static int parsePort(String text, String whole) {
        try {
            int port = Integer.parseInt(text);
            if (port < 0 || port > 65535) {
                throw bad("port out of range in '" + whole + "'");
            }
            return port;
        } catch (NumberFormatException e) {
            throw bad("bad port in '" + whole + "'");
        }
    }

    private static int parseQos(String text) {
        int qos = 0;
        for (String name : text.toLowerCase(Locale.ROOT).split("[|+]")) {
            qos |= switch (name) {
                case "best_effort" -> Qos.BEST_EFFORT;
                case "high_throughput" -> Qos.HIGH_THROUGHPUT;
                case "low_latency" -> Qos.LOW_LATENCY;
                case "economy" -> Qos.ECONOMY;
                case "premium" -> Qos.PREMIUM;
                default -> throw bad("unknown qos '" + name + "'");
            };
        }
        return qos;
    }

    private static int intParam(Map<String, String> params, String key, int fallback) {
        String value = params.remove(key);
        if (value == null) {
            return fallback;
        }
        long parsed = longValue(key, value);
        if (parsed > Integer.MAX_VALUE) {
            throw bad(key + "=" + value + " is too large");
        }
        return (int) parsed;
    }

    private static long longParam(Map<String, String> params, String key, long fallback) {
        String value = params.remove(key);
        return value == null ? fallback : longValue(key, value);
    }

    private static long longValue(String key, String value) {
        try {
            long parsed = Long.parseLong(value);
            if (parsed <= 0) {
                throw bad(key + "=" + value + " must be positive");
            }
            return parsed;
        } catch (NumberFormatException e) {
            throw bad(key + "=" + value + " is not a number");
        }
    }

    private static DatException bad(String detail) {
        return DatException.of(DatReturn.INVALID_PARAMETER, DatReturn.INVALID_ARG2, "ia_params", detail);
    }
}
