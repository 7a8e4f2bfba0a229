package dat.registry.internal;

import dat.api.DatConstants;
import dat.api.ProviderDTO;
import dat.api.spi.DatIaFactory;
import dat.api.spi.DatProviderConstants;
import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One provider registration the registry knows of, as an immutable info object: an OSGi factory
 * service, a factory found by {@link java.util.ServiceLoader}, or one given to
 * {@code addProvider}. Its properties are read once, here; "modified" service properties make a
 * new registration with the same id.
 *
 * <p>A registration does not hold the factory: its {@link FactoryHandle} gets it when an IA is
 * first opened, so a registered but unused provider is never activated by the registry.
 *
 * @param id the {@code service.id}, or a negative number the registry assigns
 * @param kind how the provider was registered
 * @param source where it comes from, for people: {@code "service 42 of bundle b"}, ...
 * @param properties the properties, array values as lists
 * @param factory gets the factory when needed
 * @param providerName {@code dat.provider.name}, or {@code ""} when invalid
 * @param providerVersion {@code dat.provider.version}, or {@code ""}
 * @param transport {@code dat.transport}, or {@code ""}
 * @param ranking {@code service.ranking}, 0 when absent or not an {@code Integer}
 * @param iaNames {@code dat.ia.name}: the IAs the provider offers by itself
 * @param versionMajor the DAT major version of {@code dat.api.version}
 * @param versionMinor the DAT minor version of {@code dat.api.version}
 * @param threadSafe {@code dat.thread.safe}
 * @param failureReason {@link ProviderDTO#FAILURE_REASON_NONE}, or why the registration is unusable
 * @param failureDetail why the registration is unusable, or {@code ""}
 */
record Registration(long id, Kind kind, String source, Map<String, Object> properties, FactoryHandle factory,
        String providerName, String providerVersion, String transport, int ranking, List<String> iaNames,
        int versionMajor, int versionMinor, boolean threadSafe, int failureReason, String failureDetail) {

    /** How a provider reached the registry; the order breaks ties in ranking. */
    enum Kind {
        /** An OSGi service. */
        SERVICE,
        /** Found by {@link java.util.ServiceLoader}. */
        SERVICE_LOADER,
        /** Given to {@code DatRegistry.addProvider}. */
        ADDED
    }

    /** Gets the factory of a registration when the registry needs it. */
    interface FactoryHandle {

        /**
         * The factory.
         *
         * @return the factory, or {@code null} when it cannot be had (an OSGi service whose
         *     component failed, or that is unregistering)
         */
        DatIaFactory get();

        /** Releases the factory when the registration ends. */
        default void release() {
        }

        /**
         * Whether this handle gets the given factory object; used to find an added provider.
         *
         * @param factory a factory
         * @return whether it is the object this handle holds
         */
        default boolean holds(DatIaFactory factory) {
            return false;
        }
    }

    /** A handle on a factory object held from the start (ServiceLoader, addProvider). */
    record Direct(DatIaFactory factory) implements FactoryHandle {
        @Override
        public DatIaFactory get() {
            return factory;
        }

        @Override
        public boolean holds(DatIaFactory other) {
            return factory == other;
        }
    }

    Registration {
        properties = Map.copyOf(properties);
        iaNames = List.copyOf(iaNames);
    }

    /**
     * {@code dat.provider.library}: the file names of the C provider libraries whose static
     * registry entries this provider serves.
     *
     * @return the names, empty when the property is absent or not strings
     */
    List<String> libraries() {
        Object value = properties.get(DatProviderConstants.DAT_PROVIDER_LIBRARY);
        if (value instanceof String s) {
            return List.of(s);
        }
        if (value instanceof Collection<?> collection) {
            return collection.stream().filter(String.class::isInstance).map(String.class::cast).toList();
        }
        return List.of();
    }

    /** Whether the registration can serve IAs. */
    boolean valid() {
        return failureReason == ProviderDTO.FAILURE_REASON_NONE;
    }

    /**
     * Reads a registration's description from its properties, checking each.
     *
     * @param id the id
     * @param kind how it was registered
     * @param source where it comes from
     * @param rawProperties the service properties or {@link DatIaFactory#properties()}
     * @param factory gets the factory
     * @return the registration; invalid properties make a registration with
     *     {@link ProviderDTO#FAILURE_REASON_INVALID_PROPERTIES} and the first problem found
     */
    static Registration describe(long id, Kind kind, String source, Map<String, ?> rawProperties, FactoryHandle factory) {
        Map<String, Object> properties = immutableValues(rawProperties);
        List<String> problems = new ArrayList<>();
        String providerName = string(properties, DatProviderConstants.DAT_PROVIDER_NAME, null, problems);
        if (providerName != null && providerName.isBlank()) {
            problems.add(DatProviderConstants.DAT_PROVIDER_NAME + " is empty");
        }
        String providerVersion = string(properties, DatProviderConstants.DAT_PROVIDER_VERSION, "", problems);
        String transport = string(properties, DatProviderConstants.DAT_TRANSPORT, "", problems);
        List<String> iaNames = iaNames(properties.get(DatProviderConstants.DAT_IA_NAME), problems);
        String version = string(properties, DatProviderConstants.DAT_API_VERSION, DatProviderConstants.DAT_API_VERSION_1_2,
                problems);
        int[] majorMinor = version == null ? null : version(version);
        if (version != null && majorMinor == null) {
            problems.add(DatProviderConstants.DAT_API_VERSION + " '" + version + "' is not <major>.<minor>, for example "
                    + DatConstants.VERSION_MAJOR + "." + DatConstants.VERSION_MINOR);
        }
        Object threadSafeValue = properties.get(DatProviderConstants.DAT_THREAD_SAFE);
        boolean threadSafe = false;
        if (threadSafeValue instanceof Boolean b) {
            threadSafe = b;
        } else if (threadSafeValue != null) {
            problems.add(DatProviderConstants.DAT_THREAD_SAFE + " must be a Boolean, not " + typeAndValue(threadSafeValue));
        }
        int ranking = properties.get("service.ranking") instanceof Integer r ? r : 0;
        boolean invalid = providerName == null || providerName.isBlank() || !problems.isEmpty();
        if (providerName == null) {
            problems.addFirst("no " + DatProviderConstants.DAT_PROVIDER_NAME + " property");
        }
        return new Registration(id, kind, source, properties, factory, providerName == null ? "" : providerName,
                providerVersion == null ? "" : providerVersion, transport == null ? "" : transport, ranking, iaNames,
                majorMinor == null ? 0 : majorMinor[0], majorMinor == null ? 0 : majorMinor[1], threadSafe,
                invalid ? ProviderDTO.FAILURE_REASON_INVALID_PROPERTIES : ProviderDTO.FAILURE_REASON_NONE,
                invalid ? String.join("; ", problems) : "");
    }

    /**
     * A registration that failed before its properties could be read, for example a
     * ServiceLoader provider whose class cannot be instantiated.
     */
    static Registration failed(long id, Kind kind, String source, String providerName, int reason, String detail) {
        return new Registration(id, kind, source, Map.of(DatProviderConstants.DAT_PROVIDER_NAME, providerName),
                () -> null, providerName, "", "", 0, List.of(), 0, 0, false, reason, detail);
    }

    private static String string(Map<String, Object> properties, String key, String defaultValue, List<String> problems) {
        Object value = properties.get(key);
        if (value == null) {
            return defaultValue;
        }
        if (value instanceof String s) {
            return s;
        }
        problems.add(key + " must be a String, not " + typeAndValue(value));
        return null;
    }

    private static List<String> iaNames(Object value, List<String> problems) {
        List<String> names = new ArrayList<>();
        if (value == null) {
            return names;
        }
        if (value instanceof String s) {
            names.add(s);
        } else if (value instanceof Collection<?> collection && collection.stream().allMatch(String.class::isInstance)) {
            collection.forEach(name -> names.add((String) name));
        } else {
            problems.add(DatProviderConstants.DAT_IA_NAME + " must be a String, String[] or Collection<String>, not "
                    + typeAndValue(value));
            return List.of();
        }
        for (String name : names) {
            String problem = iaNameProblem(name);
            if (problem != null) {
                problems.add(DatProviderConstants.DAT_IA_NAME + " " + problem);
            }
        }
        return names.stream().distinct().toList();
    }

    /**
     * What is wrong with an IA name a provider offers.
     *
     * @param name the IA name
     * @return {@code "'name' ..."}, or {@code null} when the name is valid
     */
    static String iaNameProblem(String name) {
        if (name.isEmpty() || name.length() > 255) {
            return "'" + name + "' must have 1 to 255 characters";
        }
        if (name.startsWith(DatConstants.IA_NAME_RO_AWARE_PREFIX)) {
            return "'" + name + "' starts with " + DatConstants.IA_NAME_RO_AWARE_PREFIX
                    + ", which dat_ia_open removes before matching";
        }
        return null;
    }

    /**
     * Parses {@code "major.minor"}.
     *
     * @return the two numbers, or {@code null} when malformed
     */
    static int[] version(String version) {
        int dot = version.indexOf('.');
        if (dot < 1 || dot == version.length() - 1) {
            return null;
        }
        for (int i = 0; i < version.length(); i++) {
            char c = version.charAt(i);
            if (i != dot && (c < '0' || c > '9')) {
                return null;
            }
        }
        try {
            return new int[] {Integer.parseInt(version, 0, dot, 10), Integer.parseInt(version, dot + 1, version.length(), 10)};
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static String typeAndValue(Object value) {
        return value.getClass().getSimpleName() + " '" + value + "'";
    }

    /** Copies properties, turning arrays into lists, so that a registration is immutable. */
    static Map<String, Object> immutableValues(Map<String, ?> properties) {
        Map<String, Object> copy = new LinkedHashMap<>();
        properties.forEach((key, value) -> {
            if (key != null && value != null) {
                copy.put(key, value.getClass().isArray() ? arrayToList(value) : value instanceof Collection<?> c
                        ? List.copyOf(c.stream().filter(Objects::nonNull).toList()) : value);
            }
        });
        return copy;
    }

    private static List<Object> arrayToList(Object array) {
        List<Object> list = new ArrayList<>();
        for (int i = 0, n = Array.getLength(array); i < n; i++) {
            Object element = Array.get(array, i);
            if (element != null) {
                list.add(element);
            }
        }
        return List.copyOf(list);
    }
}
