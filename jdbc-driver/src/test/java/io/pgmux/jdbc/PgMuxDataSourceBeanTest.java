package io.pgmux.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgmux.core.config.PoolMode;
import io.pgmux.core.stats.MetricsTrackerFactory;
import java.beans.BeanInfo;
import java.beans.IntrospectionException;
import java.beans.Introspector;
import java.beans.PropertyDescriptor;
import java.lang.reflect.Method;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * The bean shape binders (Spring's, any DI container's) see: every HikariConfig property with HikariCP's
 * type, so that configuration written for HikariDataSource binds unchanged.
 */
class PgMuxDataSourceBeanTest {

    /** HikariConfig's bean properties and their types (HikariCP 6/7). */
    private static final Map<String, Class<?>> HIKARI_PROPERTIES = new LinkedHashMap<>();

    static {
        HIKARI_PROPERTIES.put("jdbcUrl", String.class);
        HIKARI_PROPERTIES.put("username", String.class);
        HIKARI_PROPERTIES.put("password", String.class);
        HIKARI_PROPERTIES.put("driverClassName", String.class);
        HIKARI_PROPERTIES.put("dataSourceProperties", Properties.class);
        HIKARI_PROPERTIES.put("maximumPoolSize", int.class);
        HIKARI_PROPERTIES.put("minimumIdle", int.class);
        HIKARI_PROPERTIES.put("connectionTimeout", long.class);
        HIKARI_PROPERTIES.put("idleTimeout", long.class);
        HIKARI_PROPERTIES.put("maxLifetime", long.class);
        HIKARI_PROPERTIES.put("keepaliveTime", long.class);
        HIKARI_PROPERTIES.put("leakDetectionThreshold", long.class);
        HIKARI_PROPERTIES.put("validationTimeout", long.class);
        HIKARI_PROPERTIES.put("initializationFailTimeout", long.class);
        HIKARI_PROPERTIES.put("connectionInitSql", String.class);
        HIKARI_PROPERTIES.put("connectionTestQuery", String.class);
        HIKARI_PROPERTIES.put("autoCommit", boolean.class);
        HIKARI_PROPERTIES.put("readOnly", boolean.class);
        HIKARI_PROPERTIES.put("transactionIsolation", String.class);
        HIKARI_PROPERTIES.put("catalog", String.class);
        HIKARI_PROPERTIES.put("schema", String.class);
        HIKARI_PROPERTIES.put("poolName", String.class);
        HIKARI_PROPERTIES.put("isolateInternalQueries", boolean.class);
        HIKARI_PROPERTIES.put("allowPoolSuspension", boolean.class);
        HIKARI_PROPERTIES.put("registerMbeans", boolean.class);
        HIKARI_PROPERTIES.put("credentialsProviderClassName", String.class);
    }

    private static Map<String, PropertyDescriptor> properties() throws IntrospectionException {
        BeanInfo info = Introspector.getBeanInfo(PgMuxDataSource.class);
        Map<String, PropertyDescriptor> byName = new LinkedHashMap<>();
        for (PropertyDescriptor d : info.getPropertyDescriptors()) {
            byName.put(d.getName(), d);
        }
        return byName;
    }

    @Test
    void hasEveryHikariPropertyReadableAndWritableWithHikarisType() throws IntrospectionException {
        Map<String, PropertyDescriptor> ours = properties();
        for (Map.Entry<String, Class<?>> hikari : HIKARI_PROPERTIES.entrySet()) {
            PropertyDescriptor d = ours.get(hikari.getKey());
            assertNotNull(d, hikari.getKey());
            assertEquals(hikari.getValue(), d.getPropertyType(), hikari.getKey());
            assertNotNull(d.getReadMethod(), hikari.getKey() + " getter");
            assertNotNull(d.getWriteMethod(), hikari.getKey() + " setter");
        }
    }

    @Test
    void takesTheMetricsTrackerFactoryAndThePgmuxSettings() throws IntrospectionException {
        Map<String, PropertyDescriptor> ours = properties();
        assertEquals(MetricsTrackerFactory.class, ours.get("metricsTrackerFactory").getPropertyType());
        assertEquals(PoolMode.class, ours.get("poolMode").getPropertyType());
        for (String name : new String[] {"reservePoolSize", "maxClientConn", "maxDbConnections",
                "maxUserConnections"}) {
            assertEquals(int.class, ours.get(name).getPropertyType(), name);
            assertNotNull(ours.get(name).getWriteMethod(), name);
        }
        for (String name : new String[] {"reservePoolTimeout", "serverLoginRetry", "serverConnectTimeout"}) {
            assertEquals(long.class, ours.get(name).getPropertyType(), name);
            assertNotNull(ours.get(name).getWriteMethod(), name);
        }
    }

    @Test
    void hasTheStringSettersSpringBootsDataSourceBuilderLooksFor() throws NoSuchMethodException {
        for (String name : new String[] {"setUrl", "setUsername", "setPassword", "setDriverClassName"}) {
            Method setter = PgMuxDataSource.class.getMethod(name, String.class);
            assertNotNull(setter, name);
        }
        for (String name : new String[] {"getUrl", "getUsername", "getPassword", "getDriverClassName"}) {
            assertEquals(String.class, PgMuxDataSource.class.getMethod(name).getReturnType(), name);
        }
    }

    @Test
    void hasTheSettersOfHikariPropertiesItRefusesSoThatBindingThemFailsLoudly() throws NoSuchMethodException {
        assertNotNull(PgMuxDataSource.class.getMethod("setDataSourceClassName", String.class));
        assertNotNull(PgMuxDataSource.class.getMethod("setDataSourceJNDI", String.class));
        assertNotNull(PgMuxDataSource.class.getMethod("setExceptionOverrideClassName", String.class));
        assertNotNull(PgMuxDataSource.class.getMethod("setHealthCheckRegistry", Object.class));
        for (String name : new String[] {"setHealthCheckProperties", "setThreadFactory", "setScheduledExecutor",
                "setDataSource", "setExceptionOverride", "setCredentials"}) {
            assertNotNull(PgMuxDataSource.class.getMethod(name, Object.class), name);
        }
    }

    @Test
    void pairsEveryGetterWithASetterOfTheSameType() throws IntrospectionException {
        for (PropertyDescriptor d : properties().values()) {
            if (d.getReadMethod() != null && d.getWriteMethod() != null) {
                assertEquals(d.getReadMethod().getReturnType(), d.getWriteMethod().getParameterTypes()[0],
                        d.getName());
            }
        }
        assertTrue(properties().get("poolMXBean").getWriteMethod() == null);
    }
}
