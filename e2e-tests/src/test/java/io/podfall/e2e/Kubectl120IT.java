package io.podfall.e2e;

import io.podfall.e2e.clients.Command;

/**
 * kubectl 1.20, from Debian's kubernetes-client package, unpacked by {@code scripts/kubectl-1.20} (CI runs it);
 * {@code -Dpodfall.kubectl120=PATH} names another copy.
 */
class Kubectl120IT extends KubectlTests {
    @Override
    String binary() {
        return Command.find(System.getProperty("podfall.kubectl120", "/var/tmp/podfall-kubectl-1.20/usr/bin/kubectl"));
    }

    @Override
    String prefix() {
        return "k120-";
    }
}
