package io.pgmux.jdbc.logical;

import java.sql.ParameterMetaData;
import java.sql.SQLException;

/** Parameter metadata read completely while a server connection was held. */
final class DetachedParameterMetaData implements ParameterMetaData {
    private final int count;
    private final int[] nullable;
    private final boolean[] signed;
    private final int[] precision;
    private final int[] scale;
    private final int[] type;
    private final String[] typeName;
    private final String[] className;
    private final int[] mode;

    DetachedParameterMetaData(ParameterMetaData md) throws SQLException {
        count = md.getParameterCount();
        nullable = new int[count];
        signed = new boolean[count];
        precision = new int[count];
        scale = new int[count];
        type = new int[count];
        typeName = new String[count];
        className = new String[count];
        mode = new int[count];
        for (int i = 0; i < count; i++) {
            int p = i + 1;
            nullable[i] = md.isNullable(p);
            signed[i] = md.isSigned(p);
            precision[i] = md.getPrecision(p);
            scale[i] = md.getScale(p);
            type[i] = md.getParameterType(p);
            typeName[i] = md.getParameterTypeName(p);
            className[i] = md.getParameterClassName(p);
            mode[i] = md.getParameterMode(p);
        }
    }

    private int at(int param) throws SQLException {
        if (param < 1 || param > count) {
            throw new SQLException("The parameter index is out of range: " + param + ", number of parameters: "
                    + count + ".", "22023");
        }
        return param - 1;
    }

    @Override
    public int getParameterCount() {
        return count;
    }

    @Override
    public int isNullable(int param) throws SQLException {
        return nullable[at(param)];
    }

    @Override
    public boolean isSigned(int param) throws SQLException {
        return signed[at(param)];
    }

    @Override
    public int getPrecision(int param) throws SQLException {
        return precision[at(param)];
    }

    @Override
    public int getScale(int param) throws SQLException {
        return scale[at(param)];
    }

    @Override
    public int getParameterType(int param) throws SQLException {
        return type[at(param)];
    }

    @Override
    public String getParameterTypeName(int param) throws SQLException {
        return typeName[at(param)];
    }

    @Override
    public String getParameterClassName(int param) throws SQLException {
        return className[at(param)];
    }

    @Override
    public int getParameterMode(int param) throws SQLException {
        return mode[at(param)];
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        throw new SQLException("Cannot unwrap to " + iface.getName(), "HY000");
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
        return iface.isInstance(this);
    }
}
