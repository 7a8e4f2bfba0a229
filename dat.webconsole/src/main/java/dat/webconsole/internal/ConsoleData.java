package dat.webconsole.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dat.api.DatRegistry;
import dat.api.ProviderDTO;
import dat.api.RegistryRuntimeDTO;
import dat.api.spi.DatProviderStatus;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import javax.management.AttributeList;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;

/**
 * What the DAT page shows, as one JSON document (built with Jackson): the registry's providers
 * ({@link RegistryRuntimeDTO}: active, shadowed and failed IAs with their reasons), the installed
 * providers that offer no IA ({@link DatProviderStatus}), the static registry and its bad lines,
 * and the open IAs that keep counters, read from their MXBeans {@code dat:type=IA,*} (registered by
 * {@code dat.management}, read by name here, so the page needs no import of it and shows no
 * counters where it is not installed).
 */
final class ConsoleData {

    /** The MXBean attributes shown for each open IA, in the order of the page's columns. */
    static final List<String> COUNTERS = List.of("OperationsPosted", "BytesPosted", "PostErrors", "Completions", "CompletedBytes",
            "CompletionErrors", "Flushed", "AsyncErrors");
    private static final List<String> ATTRIBUTES = List.of("IaName", "Instance", "ProviderName", "Open", "Since", "OperationsPosted",
            "OperationsPostedByKind", "BytesPosted", "PostErrors", "Completions", "CompletedBytes", "CompletionErrors", "Flushed",
            "AsyncErrors");

    private ConsoleData() {
    }

    static ObjectNode of(DatRegistry registry, List<DatProviderStatus> unavailable, MBeanServer server) {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        RegistryRuntimeDTO runtime = registry.getRuntimeDTO();
        ArrayNode providers = root.putArray("providers");
        for (ProviderDTO p : runtime.providers()) {
            ObjectNode node = providers.addObject();
            node.put("iaName", p.iaName());
            node.put("providerName", p.providerName());
            node.put("providerVersion", p.providerVersion());
            node.put("transport", p.transport());
            node.put("apiVersion", p.versionMajor() + "." + p.versionMinor());
            node.put("threadSafe", p.threadSafe());
            node.put("origin", p.origin().name().toLowerCase(Locale.ROOT));
            node.put("state", p.state().name().toLowerCase(Locale.ROOT));
            node.put("failureReason", ProviderDTO.failureReasonName(p.failureReason()));
            node.put("failureDetail", p.failureDetail());
            node.put("source", p.source());
            node.put("instanceData", p.instanceData());
            node.put("openIas", p.openIas());
            node.put("ranking", p.ranking());
            node.put("serviceId", p.id());
        }
        ArrayNode absent = root.putArray("unavailable");
        for (DatProviderStatus status : unavailable) {
            absent.addObject().put("providerName", status.providerName()).put("reason", status.unavailableReason());
        }
        ObjectNode conf = root.putObject("staticRegistry");
        conf.put("path", runtime.staticRegistry());
        conf.put("read", runtime.staticRegistryRead());
        ArrayNode problems = conf.putArray("problems");
        runtime.staticRegistryProblems().forEach(problems::add);
        root.set("openIas", openIas(server));
        return root;
    }

    /** The open IAs' counters, from their MXBeans, by IA name and instance; an MXBean that went meanwhile is left out. */
    private static ArrayNode openIas(MBeanServer server) {
        ArrayNode ias = JsonNodeFactory.instance.arrayNode();
        List<ObjectNode> rows = new ArrayList<>();
        try {
            for (ObjectName name : server.queryNames(new ObjectName("dat:type=IA,*"), null)) {
                AttributeList attributes;
                try {
                    attributes = server.getAttributes(name, ATTRIBUTES.toArray(String[]::new));
                } catch (JMException e) {
                    continue; // closed between the query and the read
                }
                Map<String, Object> values = new TreeMap<>();
                attributes.asList().forEach(a -> values.put(a.getName(), a.getValue()));
                if (!values.keySet().containsAll(List.of("IaName", "Instance"))) {
                    continue;
                }
                ObjectNode row = JsonNodeFactory.instance.objectNode();
                row.put("iaName", String.valueOf(values.get("IaName")));
                row.put("instance", ((Number) values.get("Instance")).longValue());
                row.put("providerName", String.valueOf(values.get("ProviderName")));
                row.put("open", Boolean.TRUE.equals(values.get("Open")));
                row.put("since", String.valueOf(values.get("Since")));
                row.put("objectName", name.toString());
                for (String counter : COUNTERS) {
                    Object value = values.get(counter);
                    row.put(lowerFirst(counter), value instanceof Number n ? n.longValue() : 0);
                }
                ObjectNode kinds = row.putObject("operationsPostedByKind");
                if (values.get("OperationsPostedByKind") instanceof TabularData table) {
                    for (Object entry : table.values()) {
                        CompositeData data = (CompositeData) entry;
                        kinds.put(String.valueOf(data.get("key")), ((Number) data.get("value")).longValue());
                    }
                }
                rows.add(row);
            }
        } catch (javax.management.MalformedObjectNameException e) {
            throw new IllegalStateException(e);
        }
        rows.sort(Comparator.comparing((ObjectNode r) -> r.get("iaName").asText()).thenComparingLong(r -> r.get("instance").asLong()));
        rows.forEach(ias::add);
        return ias;
    }

    static String lowerFirst(String name) {
        return Character.toLowerCase(name.charAt(0)) + name.substring(1);
    }
}
