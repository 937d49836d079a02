package io.podfall.e2e;

import io.podfall.e2e.clients.Kubectl;

/** This machine's kubectl (the system's, which runs kubectl 1.32 against this server). */
class KubectlIT extends KubectlTests {
    @Override
    String binary() {
        return Kubectl.SYSTEM;
    }

    @Override
    String prefix() {
        return "k-";
    }
}
