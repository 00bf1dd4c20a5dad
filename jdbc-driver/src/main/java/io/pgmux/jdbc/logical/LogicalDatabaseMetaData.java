package io.pgmux.jdbc.logical;

import io.pgmux.jdbc.physical.PhysicalConnection;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * DatabaseMetaData of a logical connection: each call runs on the server connection held, or borrows one
 * for that call. Result sets it returns hold the connection until closed, like any other result set.
 */
final class LogicalDatabaseMetaData implements InvocationHandler {
    private final LogicalConnection conn;

    LogicalDatabaseMetaData(LogicalConnection conn) {
        this.conn = conn;
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        switch (method.getName()) {
            case "getConnection":
                return conn;
            case "equals":
                return proxy == args[0];
            case "hashCode":
                return System.identityHashCode(proxy);
            case "toString":
                return "DatabaseMetaData of " + conn;
            case "isWrapperFor":
                return ((Class<?>) args[0]).isInstance(proxy);
            case "unwrap":
                if (((Class<?>) args[0]).isInstance(proxy)) {
                    return proxy;
                }
                throw new SQLException("Cannot unwrap to " + ((Class<?>) args[0]).getName(), "HY000");
            default:
                break;
        }
        conn.checkOpen();
        if (method.getReturnType() == ResultSet.class) {
            conn.lock();
            try {
                PhysicalConnection p = conn.attach();
                ResultSet rs;
                try {
                    rs = (ResultSet) call(method, p, args);
                } catch (SQLException e) {
                    conn.failed(e);
                    conn.afterExecute();
                    throw e;
                }
                return new LogicalResultSet(conn, null, rs, p);
            } finally {
                conn.unlock();
            }
        }
        return conn.withServer(p -> call(method, p, args));
    }

    private static Object call(Method method, PhysicalConnection p, Object[] args) throws SQLException {
        try {
            return method.invoke(p.connection().getMetaData(), args);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof SQLException) {
                throw (SQLException) cause;
            }
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            throw new SQLException(cause);
        } catch (IllegalAccessException e) {
            throw new SQLException("cannot call " + method.getName(), "HY000", e);
        }
    }
}
