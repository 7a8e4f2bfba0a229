package dat.api;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Test helper: reads the public constants of a class by reflection, so that a test can compare
 * them with a table written out by hand and fail on a wrong value, a missing constant or an
 * untested new one.
 */
final class Constants {

    /** Not instantiable: static helpers only. */
    private Constants() {}

    /**
     * The public static final fields of a class, by name, in declaration order; enum constants
     * are left out.
     *
     * @param type the class to read
     * @return field name to value ({@code Integer}, {@code Long}, {@code String}, ...)
     */
    static Map<String, Object> of(Class<?> type) {
        Map<String, Object> constants = new LinkedHashMap<>();
        for (Field field : type.getDeclaredFields()) {
            int modifiers = field.getModifiers();
            if (Modifier.isPublic(modifiers) && Modifier.isStatic(modifiers)
                    && Modifier.isFinal(modifiers) && !field.isEnumConstant()) {
                try {
                    constants.put(field.getName(), field.get(null));
                } catch (IllegalAccessException e) {
                    throw new AssertionError("cannot read " + field, e);
                }
            }
        }
        return constants;
    }
}
