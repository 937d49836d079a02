/**
 * The controller manager and what its controllers share, as upstream's {@code pkg/controller} beside
 * {@code cmd/kube-controller-manager}: the expectations, {@link io.podfall.controller.ActivePods} and the controller
 * refs of {@code controller_utils.go} and {@code controller_ref_manager.go}, the rate-limited work queue of
 * {@code client-go/util/workqueue} ({@link io.podfall.controller.WorkQueue}, {@link io.podfall.controller.Backoff}),
 * and the pod helpers of {@code pkg/api/v1/pod/util.go}. Each controller lives in a package of its own.
 */
package io.podfall.controller;
