package io.pgmux.proxy.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The names of the pools of a read-routing entry's hosts: {@code app@host:port} for each host of entry {@code app},
 * beside the entry's own pool, which is the primary's.
 */
public final class ReplicaHosts {
    private ReplicaHosts() {
    }

    /** The pool database names of {@code entry}'s hosts, in the order of its host list. */
    public static List<String> poolNames(String entry, ServerTarget target) {
        List<String> names = new ArrayList<>(target.hosts().size());
        for (ServerHost host : target.hosts()) {
            names.add(entry + "@" + ServerTarget.hostName(host));
        }
        return names;
    }

    /** The entry whose pool settings the pool of database {@code name} takes: a host pool's entry, else the name. */
    public static String settingsOf(Map<String, ServerTarget> targets, String name) {
        return target(targets, name) != null ? name.substring(0, name.lastIndexOf('@')) : name;
    }

    /** The target of the host pool {@code name} of a read-routing entry in {@code targets}; null if it is none. */
    public static ServerTarget target(Map<String, ServerTarget> targets, String name) {
        int at = name.lastIndexOf('@');
        if (at <= 0) {
            return null;
        }
        ServerTarget entry = targets.get(name.substring(0, at));
        if (entry == null || entry.readRouting() == null) {
            return null;
        }
        String host = name.substring(at + 1);
        for (ServerHost h : entry.hosts()) {
            if (ServerTarget.hostName(h).equals(host)) {
                return entry.replicaAt(h);
            }
        }
        return null;
    }
}
