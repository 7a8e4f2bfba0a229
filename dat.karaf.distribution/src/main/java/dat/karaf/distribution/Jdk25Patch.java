package dat.karaf.distribution;

import java.io.IOException;
import java.io.InputStream;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeModel;
import java.lang.classfile.CodeTransform;
import java.lang.classfile.MethodModel;
import java.lang.classfile.Opcode;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * Fixes an assembled Apache Karaf 4.4 so that it starts, and opens shells, on JDK 24 and later,
 * where the Security Manager is gone for good. Run on the assembly directory at build time:
 * <ol>
 * <li>{@code bin/inc} passes {@code -Djava.security.manager=allow} to every Java newer than 11,
 * which JDK 24+ refuses to start with ("Enabling a Security Manager is not supported"): the option
 * goes.</li>
 * <li>Karaf's shell finds the user of a session with {@code Subject.getSubject(AccessControlContext)},
 * which always throws {@code UnsupportedOperationException} on JDK 24+, so no session opens (local
 * console, SSH, {@code bin/client}); and its {@code JaasHelper.doAs} binds the session's subject
 * through an {@code AccessControlContext}, which no longer carries one, to the threads the session
 * starts. This tool adds {@code org.apache.karaf.jaas.boot.principal.Jdk25Subject} (compiled with
 * it) to Karaf's boot classes; in every class of the distribution's bundles,
 * {@code Subject.getSubject(acc)} becomes {@code Jdk25Subject.current()}, and
 * {@code JaasHelper.doAs(subject, action)} becomes {@code Jdk25Subject.doAs(subject, action)},
 * which binds the subject with {@code Subject.callAs} and hands it to the threads started inside.</li>
 * </ol>
 * The bytecode is rewritten with the JDK's own class-file API ({@code java.lang.classfile}), the
 * stack maps recomputed against the classes of the distribution itself. A signed jar that would
 * need a change fails the build rather than lose its signature silently.
 */
public final class Jdk25Patch {

    private static final ClassDesc SUBJECT = ClassDesc.of("javax.security.auth.Subject");
    private static final ClassDesc ACCESS_CONTROL_CONTEXT = ClassDesc.of("java.security.AccessControlContext");
    private static final ClassDesc PRIVILEGED_ACTION = ClassDesc.of("java.security.PrivilegedAction");
    private static final ClassDesc PRIVILEGED_EXCEPTION_ACTION = ClassDesc.of("java.security.PrivilegedExceptionAction");
    private static final MethodTypeDesc GET_SUBJECT = MethodTypeDesc.of(SUBJECT, ACCESS_CONTROL_CONTEXT);
    private static final MethodTypeDesc CURRENT = MethodTypeDesc.of(SUBJECT);
    /** The subject carrier this tool adds to Karaf's boot classes (see its comment). */
    private static final String CARRIER = "org/apache/karaf/jaas/boot/principal/Jdk25Subject";
    private static final ClassDesc CARRIER_DESC = ClassDesc.ofInternalName(CARRIER);
    private static final String JAAS_HELPER = "org/apache/karaf/util/jaas/JaasHelper";
    private static final String SECURITY_MANAGER_ALLOW = "-Djava.security.manager=allow";

    private final Map<String, byte[]> classes = new HashMap<>();
    private final List<String> report = new ArrayList<>();

    private Jdk25Patch() {
    }

    /**
     * Patches the assembly.
     *
     * @param args the assembly directory (Karaf's home)
     * @throws IOException when a file cannot be read or written
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: Jdk25Patch KARAF_HOME");
        }
        Path home = Path.of(args[0]);
        Jdk25Patch patch = new Jdk25Patch();
        patch.scripts(home);
        patch.carrier(home);
        patch.jars(home);
        patch.report.forEach(line -> System.out.println("[jdk25-patch] " + line));
        if (patch.report.stream().noneMatch(line -> line.contains("Jdk25Subject.current()"))) {
            throw new IllegalStateException("no call of Subject.getSubject found in " + home + ": is it a Karaf 4.4 assembly?");
        }
    }

    /**
     * Takes the Security Manager option out of the start scripts' commands (their comments keep
     * it): {@code DEFAULT_JAVA_OPTS="$DEFAULT_JAVA_OPTS -Djava.security.manager=allow "} stays an
     * assignment, so the block around it stays valid shell.
     */
    private void scripts(Path home) throws IOException {
        for (String script : List.of("bin/inc", "bin/inc.bat")) {
            Path file = home.resolve(script);
            if (!Files.exists(file)) {
                continue;
            }
            List<String> lines = Files.readAllLines(file, StandardCharsets.ISO_8859_1);
            List<String> patched = new ArrayList<>();
            int changed = 0;
            for (String line : lines) {
                String command = line.strip();
                if (line.contains(SECURITY_MANAGER_ALLOW) && !command.startsWith("#") && !command.toLowerCase(java.util.Locale.ROOT).startsWith("rem ")) {
                    patched.add(line.replace(" " + SECURITY_MANAGER_ALLOW, "").replace(SECURITY_MANAGER_ALLOW, ""));
                    changed++;
                } else {
                    patched.add(line);
                }
            }
            if (changed > 0) {
                Files.write(file, patched, StandardCharsets.ISO_8859_1);
                report.add(script + ": " + SECURITY_MANAGER_ALLOW + " taken out of " + changed + " command(s)");
            }
        }
    }

    /**
     * Adds {@code Jdk25Subject} (compiled with this tool) to {@code lib/boot/org.apache.karaf.jaas.boot-*.jar}:
     * its package is exported by the system bundle, and every bundle patched here imports it.
     */
    private void carrier(Path home) throws IOException {
        List<Path> boot;
        try (Stream<Path> files = Files.list(home.resolve("lib/boot"))) {
            boot = files.filter(p -> p.getFileName().toString().matches("org\\.apache\\.karaf\\.jaas\\.boot-.*\\.jar")).toList();
        }
        if (boot.size() != 1) {
            throw new IllegalStateException("not one org.apache.karaf.jaas.boot jar in " + home.resolve("lib/boot") + ": " + boot);
        }
        byte[] carrier;
        try (InputStream in = Jdk25Patch.class.getResourceAsStream("/" + CARRIER + ".class")) {
            if (in == null) {
                throw new IllegalStateException(CARRIER + ".class is not beside the tool");
            }
            carrier = in.readAllBytes();
        }
        rewrite(boot.getFirst(), Map.of(CARRIER + ".class", carrier));
        report.add(boot.getFirst().getFileName() + ": " + CARRIER + ".class added");
    }

    /** Patches every class of every jar of the distribution that needs it. */
    private void jars(Path home) throws IOException {
        List<Path> jars;
        try (Stream<Path> files = Stream.concat(Files.walk(home.resolve("system")), Files.walk(home.resolve("lib")))) {
            jars = files.filter(p -> p.toString().endsWith(".jar")).sorted().toList();
        }
        for (Path jar : jars) {
            index(jar);
        }
        for (Path jar : jars) {
            patch(jar);
        }
    }

    /** Remembers every class of a jar, for the stack maps' class hierarchy. */
    private void index(Path jar) throws IOException {
        try (JarFile file = new JarFile(jar.toFile(), false)) {
            for (Enumeration<JarEntry> entries = file.entries(); entries.hasMoreElements(); ) {
                JarEntry entry = entries.nextElement();
                String name = entry.getName();
                if (name.endsWith(".class") && !name.startsWith("META-INF/")) {
                    try (InputStream in = file.getInputStream(entry)) {
                        classes.putIfAbsent(name.substring(0, name.length() - ".class".length()), in.readAllBytes());
                    }
                }
            }
        }
    }

    private void patch(Path jar) throws IOException {
        Map<String, byte[]> changed = new HashMap<>();
        Map<String, String> what = new HashMap<>();
        boolean signed;
        try (JarFile file = new JarFile(jar.toFile(), false)) {
            signed = file.stream().anyMatch(e -> e.getName().startsWith("META-INF/") && e.getName().endsWith(".SF"));
            for (Enumeration<JarEntry> entries = file.entries(); entries.hasMoreElements(); ) {
                JarEntry entry = entries.nextElement();
                if (!entry.getName().endsWith(".class")) {
                    continue;
                }
                byte[] bytes;
                try (InputStream in = file.getInputStream(entry)) {
                    bytes = in.readAllBytes();
                }
                ClassModel model = needsPatch(bytes);
                if (model != null) {
                    changed.put(entry.getName(), patchClass(model));
                    what.put(entry.getName(), describe(model));
                }
            }
        }
        if (changed.isEmpty()) {
            return;
        }
        if (signed) {
            throw new IllegalStateException(jar + " is signed and would need " + changed.keySet() + " patched");
        }
        rewrite(jar, changed);
        changed.keySet().stream().sorted().forEach(name -> report.add(jar.getFileName() + ": " + name + ": " + what.get(name)));
    }

    /** @return the class, parsed, when it calls {@code Subject.getSubject} or is Karaf's {@code JaasHelper}; else {@code null} */
    private ClassModel needsPatch(byte[] bytes) {
        if (!contains(bytes, "getSubject") && !contains(bytes, JAAS_HELPER)) {
            return null;
        }
        ClassModel model = classFile().parse(bytes);
        return isJaasHelper(model) || model.methods().stream().anyMatch(Jdk25Patch::callsGetSubject) ? model : null;
    }

    private byte[] patchClass(ClassModel model) {
        ClassTransform transform = ClassTransform.transformingMethodBodies(Jdk25Patch::callsGetSubject, getSubjectToCurrent());
        if (isJaasHelper(model)) {
            transform = transform.andThen(doAsToSubjectDoAs());
        }
        return classFile().transformClass(model, transform);
    }

    private static String describe(ClassModel model) {
        List<String> changes = new ArrayList<>();
        if (model.methods().stream().anyMatch(Jdk25Patch::callsGetSubject)) {
            changes.add("Subject.getSubject(acc) -> Jdk25Subject.current()");
        }
        if (isJaasHelper(model)) {
            changes.add("doAs -> Jdk25Subject.doAs");
        }
        return String.join("; ", changes);
    }

    private static boolean isJaasHelper(ClassModel model) {
        return model.thisClass().asInternalName().equals(JAAS_HELPER);
    }

    /** The class-file API, its stack maps computed against the JDK's classes and the distribution's. */
    private ClassFile classFile() {
        return ClassFile.of(ClassFile.ClassHierarchyResolverOption.of(
                ClassHierarchyResolver.defaultResolver().orElse(ClassHierarchyResolver.ofResourceParsing(this::classBytes))));
    }

    private InputStream classBytes(ClassDesc desc) {
        String internal = desc.descriptorString().substring(1, desc.descriptorString().length() - 1);
        byte[] bytes = classes.get(internal);
        return bytes == null ? null : new java.io.ByteArrayInputStream(bytes);
    }

    private static boolean callsGetSubject(MethodModel method) {
        return method.code().map(code -> code.elementStream().anyMatch(Jdk25Patch::isGetSubject)).orElse(false);
    }

    private static boolean isGetSubject(Object element) {
        return element instanceof InvokeInstruction invoke && invoke.opcode() == Opcode.INVOKESTATIC
                && invoke.owner().asSymbol().equals(SUBJECT) && invoke.name().equalsString("getSubject")
                && invoke.typeSymbol().equals(GET_SUBJECT);
    }

    /** {@code Subject.getSubject(acc)}: the context is dropped, {@code Jdk25Subject.current()} asked. */
    private static CodeTransform getSubjectToCurrent() {
        return (builder, element) -> {
            if (isGetSubject(element)) {
                builder.pop();
                builder.invokestatic(CARRIER_DESC, "current", CURRENT);
            } else {
                builder.with(element);
            }
        };
    }

    /** {@code JaasHelper.doAs(subject, action)}, both forms: {@code Jdk25Subject.doAs(subject, action)}. */
    private static ClassTransform doAsToSubjectDoAs() {
        return (builder, element) -> {
            if (element instanceof MethodModel method && method.methodName().equalsString("doAs")
                    && method.methodTypeSymbol().parameterCount() == 2 && method.methodTypeSymbol().parameterType(0).equals(SUBJECT)) {
                ClassDesc action = method.methodTypeSymbol().parameterType(1);
                if (!action.equals(PRIVILEGED_ACTION) && !action.equals(PRIVILEGED_EXCEPTION_ACTION)) {
                    builder.with(element);
                    return;
                }
                MethodTypeDesc doAs = MethodTypeDesc.of(ClassDesc.of("java.lang.Object"), SUBJECT, action);
                builder.withMethod(method.methodName(), method.methodType(), method.flags().flagsMask(), methodBuilder -> {
                    method.elementStream().filter(e -> !(e instanceof CodeModel)).forEach(methodBuilder::with);
                    methodBuilder.withCode(code -> code.aload(0).aload(1).invokestatic(CARRIER_DESC, "doAs", doAs).areturn());
                });
            } else {
                builder.with(element);
            }
        };
    }

    /** Writes the jar again, each entry as it was but the patched classes. */
    private static void rewrite(Path jar, Map<String, byte[]> changed) throws IOException {
        Path patched = jar.resolveSibling(jar.getFileName() + ".patched");
        try (JarFile in = new JarFile(jar.toFile(), false);
                JarOutputStream out = new JarOutputStream(Files.newOutputStream(patched))) {
            for (Enumeration<JarEntry> entries = in.entries(); entries.hasMoreElements(); ) {
                JarEntry entry = entries.nextElement();
                JarEntry copy = new JarEntry(entry.getName());
                copy.setTime(entry.getTime());
                out.putNextEntry(copy);
                byte[] bytes = changed.get(entry.getName());
                if (bytes != null) {
                    out.write(bytes);
                } else {
                    try (InputStream data = in.getInputStream(entry)) {
                        data.transferTo(out);
                    }
                }
                out.closeEntry();
            }
            for (Map.Entry<String, byte[]> added : changed.entrySet()) {
                if (in.getEntry(added.getKey()) == null) {
                    out.putNextEntry(new JarEntry(added.getKey()));
                    out.write(added.getValue());
                    out.closeEntry();
                }
            }
        }
        Files.move(patched, jar, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    private static boolean contains(byte[] bytes, String text) {
        byte[] pattern = text.getBytes(StandardCharsets.UTF_8);
        outer:
        for (int i = 0; i <= bytes.length - pattern.length; i++) {
            for (int j = 0; j < pattern.length; j++) {
                if (bytes[i + j] != pattern[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
