package dat.management.internal;

import dat.api.ext.IaStatisticsSnapshot;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.felix.service.command.Descriptor;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * The {@code dat:stats} Gogo command: the counters of the open IAs that keep them, the same
 * figures as their JMX MXBeans.
 */
@Component(service = StatsCommand.class, property = {
    "osgi.command.scope=dat",
    "osgi.command.function=stats"
})
public final class StatsCommand {

    private final StatisticsPublisher publisher;

    /** @param publisher the MXBean publisher whose IAs the command shows */
    @Activate
    public StatsCommand(@Reference StatisticsPublisher publisher) {
        this.publisher = publisher;
    }

    /**
     * The counters of every open IA that keeps them.
     *
     * @return the report
     */
    @Descriptor("show the counters of the open IAs (operations, bytes, completions, errors); also as JMX MXBeans dat:type=IA")
    public String stats() {
        return stats("");
    }

    /**
     * The counters of the open instances of one IA.
     *
     * @param iaName the IA name
     * @return the report
     */
    @Descriptor("show the counters of the open instances of an IA")
    public String stats(@Descriptor("the IA name") String iaName) {
        List<StatisticsPublisher.Published> entries = publisher.published(iaName);
        if (entries.isEmpty()) {
            return iaName.isEmpty()
                    ? "no open IA keeps statistics (dat.api.ext.IaStatistics); counters exist while an IA is open\n"
                    : "no open instance of IA '" + iaName + "' keeps statistics (dat.api.ext.IaStatistics)\n";
        }
        StringBuilder out = new StringBuilder();
        for (StatisticsPublisher.Published entry : entries) {
            IaStatisticsSnapshot s = entry.bean().snapshot();
            out.append(String.format("IA %s #%d  provider %s  %s  since %s  (JMX %s)%n", s.iaName(), entry.bean().getInstance(),
                    entry.bean().getProviderName(), entry.bean().isOpen() ? "open" : "closed", s.since(), entry.name()));
            out.append(String.format("  posted        %d operations, %d bytes%s%n", s.totalPosted(), s.totalPostedBytes(),
                    perOperation(s)));
            out.append(String.format("  post errors   %d%s%n", s.totalPostErrors(), named(s.postErrorsByName())));
            out.append(String.format("  completions   %d, %d bytes; in error %d%s%n", s.completions(), s.completedBytes(),
                    s.totalCompletionErrors(), named(s.completionErrorsByName())));
            out.append(String.format("  async errors  %d%n", s.asyncErrors()));
        }
        return out.toString();
    }

    private static String perOperation(IaStatisticsSnapshot s) {
        String parts = s.posted().entrySet().stream().filter(e -> e.getValue() > 0)
                .map(e -> e.getKey().name() + " " + e.getValue() + " (" + s.postedBytes().get(e.getKey()) + " B)")
                .collect(Collectors.joining(", "));
        return parts.isEmpty() ? "" : ": " + parts;
    }

    private static String named(Map<String, Long> counts) {
        return counts.isEmpty() ? "" : ": " + counts.entrySet().stream().map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", "));
    }

}
