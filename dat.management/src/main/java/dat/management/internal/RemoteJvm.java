package dat.management.internal;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.net.InetSocketAddress;
import java.net.MalformedURLException;
import java.net.Socket;
import java.rmi.server.RMIClientSocketFactory;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * A JMX connection to another JVM, for {@code dat stats --pid} and {@code --jmx}. Attaching by
 * process id goes through the JDK's attach API ({@code com.sun.tools.attach}, module
 * {@code jdk.attach}), looked up reflectively from the system class loader: no bundle can import
 * the package from a framework that does not export it, and the JDK module is in every JDK's boot
 * layer.
 */
final class RemoteJvm {

    /** How long {@code dat stats} waits for a JVM to answer. */
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(20);

    private RemoteJvm() {
    }

    /**
     * Attaches to a JVM by process id, starts its local JMX agent (or finds the one running), and
     * connects to it.
     *
     * @param pid the process id
     * @return the connection
     * @throws IOException when the process cannot be attached or reached
     */
    static JMXConnector attach(long pid) throws IOException {
        Class<?> virtualMachine;
        try {
            virtualMachine = Class.forName("com.sun.tools.attach.VirtualMachine", true, ClassLoader.getSystemClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IOException("attaching by process id needs the JDK's jdk.attach module, which this JVM lacks: use --jmx URL");
        }
        Object vm;
        try {
            vm = virtualMachine.getMethod("attach", String.class).invoke(null, Long.toString(pid));
        } catch (InvocationTargetException e) {
            throw new IOException("cannot attach to process " + pid + ": " + describe(e.getCause())
                    + " (is it a JVM of this user, started without -XX:+DisableAttachMechanism?)", e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IOException("cannot attach to process " + pid + ": " + describe(e), e);
        }
        String address;
        try {
            address = (String) virtualMachine.getMethod("startLocalManagementAgent").invoke(vm);
        } catch (InvocationTargetException e) {
            throw new IOException("cannot start the JMX agent of process " + pid + ": " + describe(e.getCause()), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IOException("cannot start the JMX agent of process " + pid + ": " + describe(e), e);
        } finally {
            try {
                virtualMachine.getMethod("detach").invoke(vm);
            } catch (ReflectiveOperationException e) {
                // detaching only frees the attach connection; the JMX agent is started either way
            }
        }
        return connect(address);
    }

    /**
     * Connects to a JMX service URL.
     *
     * @param url the URL, e.g. {@code service:jmx:rmi:///jndi/rmi://HOST:PORT/jmxrmi}
     * @return the connection
     * @throws IOException when the URL is malformed or the JVM cannot be reached
     */
    static JMXConnector connect(String url) throws IOException {
        return connect(url, CONNECT_TIMEOUT);
    }

    /**
     * Connects to a JMX service URL, giving up after {@code timeout}: the RMI connector itself waits
     * as long as the operating system does for a host that drops the packets, or for a listener
     * that accepts and never answers. A connection made after the command gave up is closed.
     */
    static JMXConnector connect(String url, Duration timeout) throws IOException {
        CompletableFuture<JMXConnector> connecting = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("dat-stats-jmx-connect").start(() -> {
            try {
                connecting.complete(connectNow(url, timeout));
            } catch (Throwable e) { // an Error too (a connector provider that fails to load): the command reports it
                connecting.completeExceptionally(e);
            }
        });
        try {
            return connecting.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            connecting.thenAccept(RemoteJvm::closeQuietly);
            throw new IOException("cannot connect to " + url + ": no answer within " + timeout.toSeconds() + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            connecting.thenAccept(RemoteJvm::closeQuietly);
            throw new IOException("interrupted while connecting to " + url, e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw e.getCause() instanceof IOException io ? io : new IOException(describe(e.getCause()), e.getCause());
        }
    }

    /** The JNDI environment property that names the socket factory of an {@code rmi:} registry lookup. */
    private static final String REGISTRY_SOCKET_FACTORY = "com.sun.jndi.rmi.factory.socket";

    /** Sockets whose connect and reads end after a time, for the RMI registry's lookup. */
    private record TimedSockets(int timeoutMillis) implements RMIClientSocketFactory {
        @Override
        public Socket createSocket(String host, int port) throws IOException {
            Socket socket = new Socket();
            try {
                socket.connect(new InetSocketAddress(host, port), timeoutMillis);
                socket.setSoTimeout(timeoutMillis);
                return socket;
            } catch (IOException e) {
                socket.close();
                throw e;
            }
        }
    }

    private static void closeQuietly(JMXConnector connector) {
        try {
            connector.close();
        } catch (IOException e) {
            // the connection the command no longer wanted: nothing is left to report
        }
    }

    private static JMXConnector connectNow(String url, Duration timeout) throws IOException {
        JMXServiceURL service;
        try {
            service = new JMXServiceURL(url);
        } catch (MalformedURLException e) {
            throw new IOException("not a JMX service URL: '" + url + "' (" + e.getMessage() + ")", e);
        }
        // the JDK's connector providers, found through the system class loader rather than a bundle's
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(ClassLoader.getSystemClassLoader());
        try {
            // the lookup in the RMI registry through sockets that time out: the thread ends by itself after a silent listener
            return JMXConnectorFactory.connect(service, Map.of(REGISTRY_SOCKET_FACTORY, new TimedSockets((int) timeout.toMillis())));
        } catch (IOException | RuntimeException e) {
            // the RMI connector lets some bad URLs through as runtime exceptions (a port out of range)
            throw new IOException("cannot connect to " + url + ": " + describe(e), e);
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    /** The innermost cause that says something, on one line: RMI wraps the socket's failure in messages of several lines. */
    private static String describe(Throwable e) {
        String message = e.getClass().getSimpleName();
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause.getMessage() != null && !cause.getMessage().isBlank()) {
                message = cause.getMessage();
            }
        }
        return message.strip().replaceAll("\\s+", " ");
    }
}
