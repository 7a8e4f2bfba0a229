package dat.webconsole.internal;

import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.Serial;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * The DAT page for a web console on the javax servlet API (Karaf's webconsole feature, Felix Web Console 4): a plain
 * servlet service with {@code felix.webconsole.label}, which the console frames; its data path is
 * answered alone, as JSON.
 */
final class JavaxPlugin extends HttpServlet {

    @Serial
    private static final long serialVersionUID = 1L;

    private final transient Supplier<com.fasterxml.jackson.databind.node.ObjectNode> data;

    JavaxPlugin(Supplier<com.fasterxml.jackson.databind.node.ObjectNode> data) {
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
