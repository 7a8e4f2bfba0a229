package dat.webconsole.internal;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.Serial;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * The DAT page for a web console on the Jakarta servlet API (Apache Felix Web Console 5): a plain
 * servlet service with {@code felix.webconsole.label}, which the console frames; its data path is
 * answered alone, as JSON.
 */
final class JakartaPlugin extends HttpServlet {

    @Serial
    private static final long serialVersionUID = 1L;

    private final transient Supplier<com.fasterxml.jackson.databind.node.ObjectNode> data;

    JakartaPlugin(Supplier<com.fasterxml.jackson.databind.node.ObjectNode> data) {
        this.data = data;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        boolean json = ConsolePage.isData(request.getPathInfo());
        response.setCharacterEncoding(StandardCharsets.UTF_8.name());
        response.setContentType(json ? "application/json" : "text/html");
        response.setHeader("Cache-Control", "no-store");
        response.getWriter().write(json ? ConsolePage.json(data.get()) : ConsolePage.html(data.get()));
    }
}
