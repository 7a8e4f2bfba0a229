package dat.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Checks docs/api-mapping.md against the API: every one of the 73 DAT 1.2 functions has a row, and
 * every row names a Java member that exists with those parameter types.
 */
class ApiMappingTest {

    /** The 73 functions of DAT 1.2 (shared/reference/seeds/FUNCTIONS.txt). */
    private static final List<String> FUNCTIONS = List.of(
            "dat_cno_create", "dat_cno_free", "dat_cno_modify_agent", "dat_cno_query", "dat_cno_wait",
            "dat_cr_accept", "dat_cr_handoff", "dat_cr_query", "dat_cr_reject",
            "dat_ep_connect", "dat_ep_create", "dat_ep_create_with_srq", "dat_ep_disconnect", "dat_ep_dup_connect",
            "dat_ep_free", "dat_ep_get_status", "dat_ep_modify", "dat_ep_post_rdma_read", "dat_ep_post_rdma_write",
            "dat_ep_post_recv", "dat_ep_post_send", "dat_ep_query", "dat_ep_recv_query", "dat_ep_reset",
            "dat_ep_set_watermark",
            "dat_evd_clear_unwaitable", "dat_evd_dequeue", "dat_evd_disable", "dat_evd_enable", "dat_evd_free",
            "dat_evd_modify_cno", "dat_evd_post_se", "dat_evd_query", "dat_evd_resize", "dat_evd_set_unwaitable",
            "dat_evd_wait",
            "dat_get_consumer_context", "dat_get_handle_type",
            "dat_ia_close", "dat_ia_open", "dat_ia_query",
            "dat_lmr_create", "dat_lmr_free", "dat_lmr_query", "dat_lmr_sync_rdma_read", "dat_lmr_sync_rdma_write",
            "dat_provider_fini", "dat_provider_init",
            "dat_psp_create", "dat_psp_create_any", "dat_psp_free", "dat_psp_query",
            "dat_pz_create", "dat_pz_free", "dat_pz_query",
            "dat_registry_add_provider", "dat_registry_list_providers", "dat_registry_remove_provider",
            "dat_rmr_bind", "dat_rmr_create", "dat_rmr_free", "dat_rmr_query",
            "dat_rsp_create", "dat_rsp_free", "dat_rsp_query",
            "dat_set_consumer_context",
            "dat_srq_create", "dat_srq_free", "dat_srq_post_recv", "dat_srq_query", "dat_srq_resize", "dat_srq_set_lw",
            "dat_strerror");

    private static final Pattern ROW = Pattern.compile("^\\| `(dat_[a-z_]+)` \\| `([A-Za-z.]+)` \\| `([A-Za-z]+)\\(([^)]*)\\)` \\| ([^|]+) \\|");

    private static Map<String, String[]> rows() throws IOException {
        Path doc = Path.of("..", "docs", "api-mapping.md");
        Map<String, String[]> rows = new LinkedHashMap<>();
        for (String line : Files.readAllLines(doc)) {
            Matcher m = ROW.matcher(line);
            if (m.find()) {
                rows.put(m.group(1), new String[] {m.group(2), m.group(3), m.group(4), m.group(5).trim()});
            }
        }
        return rows;
    }

    @Test
    void everyFunctionHasAJavaHome() throws IOException {
        assertThat(FUNCTIONS).hasSize(73).doesNotHaveDuplicates();
        assertThat(rows().keySet()).containsExactlyInAnyOrderElementsOf(FUNCTIONS);
    }

    @Test
    void everyJavaMemberExists() throws Exception {
        List<String> missing = new ArrayList<>();
        for (Map.Entry<String, String[]> row : rows().entrySet()) {
            String[] cells = row.getValue();
            Class<?> type = Class.forName("dat.api." + cells[0]);
            List<String> parameters = cells[2].isBlank() ? List.of() : Arrays.stream(cells[2].split(",\\s*")).toList();
            boolean found = false;
            for (Method method : type.getMethods()) {
                if (method.getName().equals(cells[1]) && simpleNames(method).equals(parameters)) {
                    found = true;
                    break;
                }
            }
            if (!found) {
                missing.add(row.getKey() + " -> " + cells[0] + "." + cells[1] + "(" + cells[2] + ")");
            }
        }
        assertThat(missing).as("rows of docs/api-mapping.md whose Java member does not exist").isEmpty();
    }

    @Test
    void dataPathMembersReturnTheCode() throws Exception {
        for (Map.Entry<String, String[]> row : rows().entrySet()) {
            String[] cells = row.getValue();
            if (!cells[3].equals("returns the code")) {
                continue;
            }
            Class<?> type = Class.forName("dat.api." + cells[0]);
            for (Method method : type.getMethods()) {
                if (method.getName().equals(cells[1])) {
                    assertThat(method.getReturnType()).as(row.getKey() + " is data path: returns int").isEqualTo(int.class);
                }
            }
        }
    }

    private static List<String> simpleNames(Method method) {
        return Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName).toList();
    }
}
