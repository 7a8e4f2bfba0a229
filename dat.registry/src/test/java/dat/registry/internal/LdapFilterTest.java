package dat.registry.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dat.api.DatRegistry;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The LDAP filter of provider selection, with OSGi's matching rules. */
class LdapFilterTest {

    private static final Map<String, Object> SIM = Map.of(
            "dat.provider.name", "sim",
            "dat.ia.name", "sim0",
            "dat.transport", "sim",
            "dat.thread.safe", true,
            "service.ranking", 10,
            "dat.capability", List.of("rdma.read", "rdma.write", "srq"),
            "weird", "a*b(c)\\d",
            "ratio", 0.5);

    private static boolean sim(String filter) {
        return LdapFilter.parse(filter).matches(SIM);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "(dat.transport=sim)",
        "(DAT.Transport=sim)",
        "( dat.transport =sim)",
        "(&(dat.transport=sim)(dat.thread.safe=true))",
        "(|(dat.transport=ib)(dat.transport=sim))",
        "(!(dat.transport=ib))",
        "(dat.ia.name=sim*)",
        "(dat.ia.name=*0)",
        "(dat.ia.name=s*m*0)",
        "(dat.ia.name=*)",
        "(dat.capability=srq)",
        "(dat.capability=rdma.*)",
        "(service.ranking>=10)",
        "(service.ranking<= 11)",
        "(service.ranking=10)",
        "(dat.thread.safe=TRUE)",
        "(dat.transport~= S I M )",
        "(dat.provider.name>=sia)",
        "(weird=a\\*b\\(c\\)\\\\d)",
        "(ratio<=0.75)",
        " (&(dat.transport=sim) (dat.ia.name=sim0)) "
    })
    void matches(String filter) {
        assertThat(sim(filter)).as(filter).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "(dat.transport=ib)",
        "(dat.transport=SIM)",
        "(&(dat.transport=sim)(dat.thread.safe=false))",
        "(|(dat.transport=ib)(dat.transport=roce))",
        "(!(dat.transport=sim))",
        "(dat.ia.name=verbs*)",
        "(dat.ia.name=*1)",
        "(dat.ia.name=sim00*)",
        "(absent=*)",
        "(absent=x)",
        "(dat.capability=cno)",
        "(service.ranking>=11)",
        "(service.ranking=ten)",
        "(weird=a\\*bc)",
        "(ratio>=1)"
    })
    void doesNotMatch(String filter) {
        assertThat(sim(filter)).as(filter).isFalse();
    }

    @Test
    void escapedValuesRoundTrip() {
        String value = "a*b(c)\\d";
        String filter = "(weird=" + DatRegistry.escapeFilterValue(value) + ")";
        assertThat(filter).isEqualTo("(weird=a\\*b\\(c\\)\\\\d)");
        assertThat(sim(filter)).isTrue();
        // the backslash is escaped first: an escaped star is not escaped twice
        assertThat(DatRegistry.escapeFilterValue("\\*")).isEqualTo("\\\\\\*");
    }

    @Test
    void arraysMatchAnyElement() {
        assertThat(LdapFilter.parse("(n=b)").matches(Map.of("n", new String[] {"a", "b"}))).isTrue();
        assertThat(LdapFilter.parse("(n>=3)").matches(Map.of("n", new int[] {1, 4}))).isTrue();
        assertThat(LdapFilter.parse("(n>=5)").matches(Map.of("n", new int[] {1, 4}))).isFalse();
    }

    @Test
    void reportsWhereAFilterIsMalformed() {
        assertThatThrownBy(() -> LdapFilter.parse("dat.transport=sim"))
                .hasMessage("expected '(' at position 0 of dat.transport=sim");
        assertThatThrownBy(() -> LdapFilter.parse("(dat.transport=sim"))
                .hasMessage("missing ')' at position 18 of (dat.transport=sim");
        assertThatThrownBy(() -> LdapFilter.parse("(&)")).hasMessage("empty filter list at position 2 of (&)");
        assertThatThrownBy(() -> LdapFilter.parse("(=sim)")).hasMessage("missing attribute name at position 1 of (=sim)");
        assertThatThrownBy(() -> LdapFilter.parse("(a=b(c)"))
                .hasMessage("unescaped '(' in a value; escape it as \\( at position 4 of (a=b(c)");
        assertThatThrownBy(() -> LdapFilter.parse("(a>=b*)"))
                .hasMessage("a wildcard '*' is allowed only with '='; escape it as \\* at position 6 of (a>=b*)");
        assertThatThrownBy(() -> LdapFilter.parse("(a=b)(c=d)"))
                .hasMessage("text after the end of the filter at position 5 of (a=b)(c=d)");
        assertThatThrownBy(() -> LdapFilter.parse("(a=b\\")).hasMessage("escape at the end of the filter at position 5 of (a=b\\");
        assertThatThrownBy(() -> LdapFilter.parse("(a!b)"))
                .hasMessage("expected an operator (=, ~=, >=, <=) at position 4 of (a!b)");
    }
}
