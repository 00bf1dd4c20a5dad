package io.pgmux.proxy.client;

import io.netty.buffer.ByteBuf;
import io.pgmux.proxy.parameters.ClientParameters;
import io.pgmux.proxy.parameters.SettingStatements;
import io.pgmux.proxy.protocol.FrontendMessage;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;

/**
 * What a transaction-pooled client's Query and Parse texts say of the settings it sets ({@link SettingStatements}):
 * the custom names go to its parameters, a call of set_config (tagged SELECT) or a SET in a DO block has its
 * settings read at the transaction's end as a SET has, and a setting whose name the text does not show keeps the
 * client on its server ({@link Pinning#unknownSetting()}). A named statement whose text sets settings marks each
 * transaction that binds it. Runs on the client's event loop.
 */
final class SettingStatementsSeen {
    private static final int BODY = 5;

    private final SettingStatements scanner;
    private final ResponseFilter filter;
    private final Pinning pinning;
    /** The client's named statements whose text sets settings; null while there are none. */
    private Set<String> settingStatements;

    SettingStatementsSeen(ClientParameters parameters, ResponseFilter filter, Pinning pinning) {
        this.scanner = new SettingStatements(parameters);
        this.filter = filter;
        this.pinning = pinning;
    }

    /**
     * A Query or Parse on its way to the server, from {@code start} (its type byte) to {@code to} in {@code content};
     * {@code copy} holds those bytes from its start ({@link MessageText}), or is null.
     */
    void read(byte type, ByteBuf content, int start, int to, byte[] copy) {
        int from = start + BODY;
        int flags;
        int nameEnd = -1;
        if (type == FrontendMessage.PARSE) {
            nameEnd = content.indexOf(from, to, (byte) 0);
            int textEnd = nameEnd < 0 ? -1 : content.indexOf(nameEnd + 1, to, (byte) 0);
            if (textEnd < 0) {
                // malformed: the server refuses it
                return;
            }
            flags = scanner.scan(content, nameEnd + 1, textEnd, copy, start);
        } else {
            boolean whole = content.getInt(start + 1) + 1 <= to - start;
            flags = scanner.scan(content, from, whole ? to - 1 : to, copy, start);
            if (!whole) {
                // a Query streamed in pieces: what its rest sets is read back at the transaction's end
                flags |= SettingStatements.SETS_SETTINGS;
            }
        }
        if ((flags & SettingStatements.SETS_SETTINGS) != 0) {
            filter.settingsChanged();
            if (nameEnd > from) {
                if (settingStatements == null) {
                    settingStatements = new HashSet<>();
                }
                settingStatements.add(content.toString(from, nameEnd - from, StandardCharsets.UTF_8));
            }
        }
        if ((flags & SettingStatements.UNKNOWN_NAME) != 0) {
            pinning.unknownSetting();
        }
    }

    /**
     * A Bind on its way to the server, from {@code start} (its type byte) to {@code to} in {@code content}: one of a
     * statement that sets settings counts as setting them.
     */
    void bound(ByteBuf content, int start, int to) {
        if (settingStatements == null) {
            return;
        }
        int portalEnd = content.indexOf(start + BODY, to, (byte) 0);
        int nameEnd = portalEnd < 0 ? -1 : content.indexOf(portalEnd + 1, to, (byte) 0);
        if (nameEnd > portalEnd + 1 && settingStatements.contains(
                content.toString(portalEnd + 1, nameEnd - portalEnd - 1, StandardCharsets.UTF_8))) {
            filter.settingsChanged();
        }
    }
}
