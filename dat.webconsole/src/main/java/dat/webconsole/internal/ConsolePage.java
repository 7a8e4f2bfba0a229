package dat.webconsole.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The DAT page and its data, independent of the servlet API that serves them. The page is static
 * HTML with the data of the moment embedded as JSON (so that it shows at once) and a script that
 * renders it into the two tables and then reads {@value #DATA} again every two seconds (the live
 * counters). Every JSON goes through Jackson; the embedded one with {@code <}, {@code >} and
 * {@code &} escaped, so that no text of a provider can end the script element.
 */
final class ConsolePage {

    /** The page's label in the Web Console: {@code /system/console/dat}. */
    static final String LABEL = "dat";
    /** Its title in the Web Console's menu. */
    static final String TITLE = "DAT";
    /** Its category in the Web Console's menu. */
    static final String CATEGORY = "DAT";
    /** The data's path below the page: {@code /system/console/dat/data.json}. */
    static final String DATA = "data.json";

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ObjectMapper EMBEDDED = new ObjectMapper();

    static {
        EMBEDDED.getFactory().setCharacterEscapes(new HtmlSafe());
    }

    private ConsolePage() {
    }

    /** @return whether a request's path (below the page) asks for the data */
    static boolean isData(String pathInfo) {
        return pathInfo != null && pathInfo.endsWith("/" + DATA);
    }

    /** @return the data as JSON */
    static String json(ObjectNode data) {
        try {
            return JSON.writeValueAsString(data);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON: " + e.getOriginalMessage(), e);
        }
    }

    /** @return the page's content (the Web Console wraps it in its frame), with the data embedded */
    static String html(ObjectNode data) {
        String embedded;
        try {
            embedded = EMBEDDED.writeValueAsString(data);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write JSON: " + e.getOriginalMessage(), e);
        }
        return TEMPLATE.replace("@DATA@", embedded).replace("@LABEL@", LABEL).replace("@JSON@", DATA);
    }

    /** Jackson's escapes for JSON inside a script element: {@code <}, {@code >}, {@code &} as {@code \\uXXXX}. */
    private static final class HtmlSafe extends CharacterEscapes {
        private static final long serialVersionUID = 1L;
        private final int[] escapes;

        HtmlSafe() {
            escapes = standardAsciiEscapesForJSON();
            escapes['<'] = ESCAPE_STANDARD;
            escapes['>'] = ESCAPE_STANDARD;
            escapes['&'] = ESCAPE_STANDARD;
        }

        @Override
        public int[] getEscapeCodesForAscii() {
            return escapes;
        }

        @Override
        public SerializableString getEscapeSequence(int ch) {
            return null;
        }
    }

    private static final String TEMPLATE = """
            <div id="dat-page">
            <style>
              #dat-page h2 { font-size: 1.2em; font-weight: bold; margin: 1em 0 0.3em; }
              #dat-page table { border-collapse: collapse; margin: 0.5em 0 1em; }
              #dat-page th, #dat-page td { border: 1px solid #ccc; padding: 3px 8px; text-align: left; }
              #dat-page td.number { text-align: right; font-family: monospace; }
              #dat-page tr[data-state=active] td.state { color: #1a7f37; }
              #dat-page tr[data-state=shadowed] td.state { color: #9a6700; }
              #dat-page tr[data-state=failed] td.state, #dat-page tr[data-state=unavailable] td.state { color: #cf222e; }
            </style>
            <h2>Providers</h2>
            <table id="dat-providers">
              <thead><tr><th>IA name</th><th>Provider</th><th>Version</th><th>Transport</th><th>DAT</th><th>Origin</th>
                <th>State</th><th>Open IAs</th><th>Source / reason</th></tr></thead>
              <tbody></tbody>
            </table>
            <p id="dat-static-registry"></p>
            <h2>Open IAs</h2>
            <table id="dat-open-ias">
              <thead><tr><th>IA</th><th>Instance</th><th>Provider</th><th>Open since</th><th>Operations posted</th>
                <th>Bytes posted</th><th>Post errors</th><th>Completions</th><th>Bytes completed</th><th>Completion errors</th>
                <th>Flushed</th><th>Async errors</th></tr></thead>
              <tbody></tbody>
            </table>
            <p id="dat-open-ias-none"></p>
            <p id="dat-updated"></p>
            <script type="application/json" id="dat-data">@DATA@</script>
            <script>
            (function () {
              function cell(row, text, cls) {
                var td = document.createElement('td');
                td.textContent = text;
                if (cls) { td.className = cls; }
                row.appendChild(td);
              }
              function render(data) {
                var providers = document.querySelector('#dat-providers tbody');
                providers.replaceChildren();
                data.providers.forEach(function (p) {
                  var tr = document.createElement('tr');
                  tr.dataset.ia = p.iaName;
                  tr.dataset.state = p.state;
                  cell(tr, p.iaName || '-');
                  cell(tr, p.providerName || '-');
                  cell(tr, p.providerVersion || '-');
                  cell(tr, p.transport || '-');
                  cell(tr, p.apiVersion);
                  cell(tr, p.origin);
                  cell(tr, p.state === 'failed' ? 'failed (' + p.failureReason + ')' : p.state, 'state');
                  cell(tr, String(p.openIas), 'number');
                  cell(tr, p.state === 'active' ? p.source : p.failureDetail + (p.source ? ' [' + p.source + ']' : ''));
                  providers.appendChild(tr);
                });
                data.unavailable.forEach(function (u) {
                  var tr = document.createElement('tr');
                  tr.dataset.ia = '';
                  tr.dataset.provider = u.providerName;
                  tr.dataset.state = 'unavailable';
                  ['-', u.providerName, '-', '-', '-', 'dynamic'].forEach(function (t) { cell(tr, t); });
                  cell(tr, 'unavailable', 'state');
                  cell(tr, '0', 'number');
                  cell(tr, u.reason);
                  providers.appendChild(tr);
                });
                var conf = data.staticRegistry;
                document.getElementById('dat-static-registry').textContent = conf.path
                    ? 'Static registry: ' + conf.path + (conf.read ? '' : ' (missing)')
                      + (conf.problems.length ? '; bad lines: ' + conf.problems.join('; ') : '')
                    : 'Static registry: none';
                var ias = document.querySelector('#dat-open-ias tbody');
                ias.replaceChildren();
                data.openIas.forEach(function (ia) {
                  var tr = document.createElement('tr');
                  tr.dataset.ia = ia.iaName;
                  tr.dataset.instance = String(ia.instance);
                  cell(tr, ia.iaName);
                  cell(tr, String(ia.instance), 'number');
                  cell(tr, ia.providerName);
                  cell(tr, ia.open ? ia.since : 'closed');
                  ['operationsPosted', 'bytesPosted', 'postErrors', 'completions', 'completedBytes', 'completionErrors',
                   'flushed', 'asyncErrors'].forEach(function (k) {
                    var td = document.createElement('td');
                    td.textContent = String(ia[k]);
                    td.className = 'number';
                    td.dataset.counter = k;
                    tr.appendChild(td);
                  });
                  ias.appendChild(tr);
                });
                document.getElementById('dat-open-ias-none').textContent = data.openIas.length ? ''
                    : 'No open IA keeps counters (dat.api.ext.IaStatistics; metered-<ia> IAs of the example provider do).';
                document.getElementById('dat-updated').textContent = 'Updated ' + new Date().toLocaleTimeString();
              }
              render(JSON.parse(document.getElementById('dat-data').textContent));
              var base = window.location.pathname.replace(/\\/$/, '');
              setInterval(function () {
                fetch(base + '/@JSON@', {credentials: 'same-origin'})
                  .then(function (r) { return r.ok ? r.json() : null; })
                  .then(function (d) { if (d) { render(d); } })
                  .catch(function () { });
              }, 2000);
            })();
            </script>
            </div>
            """;
}
