package dat.tests.conformance.selftest;

import static org.assertj.core.api.Assertions.assertThat;

import dat.api.DatReturn;
import dat.tests.conformance.ConformanceSuite;
import dat.tests.conformance.ConformanceSuite.Coverage;
import java.lang.reflect.Method;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The catalog of the man pages' RETURN VALUES (return-values.tsv) against the suite: every value
 * marked covered has a test citing it, every value marked not covered has none (else the note is
 * stale), and every test that cites a page's return value cites one the page lists.
 */
class CoverageTest {

    private static final Pattern CITATION = Pattern.compile("^(dat_[a-z_]+)\\(3DAT\\) (DAT_[A-Z_]+)");

    @Test
    void everyReturnValueIsCoveredOrExplained() {
        List<Coverage> coverage = ConformanceSuite.coverage();
        assertThat(coverage).as("return values in the catalog").hasSize(275);
        assertThat(coverage.stream().map(Coverage::page).distinct().count()).as("pages with return values (73 less the two provider entry points)")
                .isEqualTo(71);
        for (Coverage row : coverage) {
            if (row.note().isEmpty()) {
                assertThat(row.tests()).as(row.page() + " " + row.returnValue() + " is marked covered").isNotEmpty();
            } else {
                assertThat(row.note()).as(row.page() + " " + row.returnValue() + " note").startsWith("not covered: ");
                assertThat(row.tests()).as(row.page() + " " + row.returnValue() + " is marked not covered, but tests cite it").isEmpty();
            }
        }
    }

    @Test
    void everyCitedReturnValueIsOneThePageLists() {
        Set<String> listed = new HashSet<>();
        for (Coverage row : ConformanceSuite.coverage()) {
            listed.add(row.page() + " " + row.returnValue().replace("DAT_UNSUFFICIENT", "DAT_INSUFFICIENT"));
        }
        int cited = 0;
        for (Class<?> testClass : ConformanceSuite.testClasses()) {
            for (Method method : testClass.getDeclaredMethods()) {
                DisplayName name = method.getAnnotation(DisplayName.class);
                if (name == null) {
                    continue;
                }
                Matcher matcher = CITATION.matcher(name.value());
                assertThat(name.value()).as(testClass.getSimpleName() + "#" + method.getName() + " cites a page").matches("^dat_[a-z_]+\\((3DAT|udat\\.h|dat_ib_extensions\\.h)\\) .*");
                if (matcher.find() && isReturnValue(matcher.group(2))) {
                    cited++;
                    assertThat(listed).as(testClass.getSimpleName() + "#" + method.getName() + " cites a return value its page lists")
                            .contains(matcher.group(1) + " " + matcher.group(2));
                }
            }
        }
        assertThat(cited).as("tests citing a return value").isGreaterThan(275);
    }

    /** A DAT_RETURN type name (or the page's DAT_SRQ_IN_USE), as opposed to an event or status name. */
    private static boolean isReturnValue(String token) {
        if (token.equals("DAT_SRQ_IN_USE")) {
            return true;
        }
        for (int type = 0; type <= 0x14; type++) {
            if (token.equals(DatReturn.typeName(type << 16))) {
                return true;
            }
        }
        return token.equals("DAT_NOT_IMPLEMENTED");
    }
}
