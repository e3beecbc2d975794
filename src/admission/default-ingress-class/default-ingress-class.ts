/**
 * DefaultIngressClass (`plugin/pkg/admission/network/defaultingressclass`, v1.32): on CREATE of an Ingress
 * that names no class (no `spec.ingressClassName`, no `kubernetes.io/ingress.class` annotation), sets
 * `spec.ingressClassName` to the default IngressClass, the one annotated
 * `ingressclass.kubernetes.io/is-default-class: "true"`; with several, the newest, then the first by name.
 * An explicit `""` is a class name and is left alone. A failed class list refuses the Ingress (403).
 */
import type { Ingress, IngressClass } from 'kubernetes-types/networking/v1.js';
import { newestDefault } from '../../api/default-class.js';
import { asForbidden, isResource } from '../_errors.js';
import { names } from '../names.js';
import type { AdmissionAttributes, AdmissionLookup, MutatingPlugin } from '../types.js';

export const name = names.DefaultIngressClass;

/** `networkingv1.AnnotationIsDefaultIngressClass`. */
export const isDefaultIngressClassAnnotation = 'ingressclass.kubernetes.io/is-default-class';
/** `networkingv1beta1.AnnotationIngressClass`: the class as the deprecated annotation names it. */
export const ingressClassAnnotation = 'kubernetes.io/ingress.class';

/** `getDefaultClass`. */
export function getDefaultIngressClass(classes: readonly IngressClass[]): IngressClass | undefined {
  return newestDefault(classes, (c) => c.metadata?.annotations?.[isDefaultIngressClassAnnotation] === 'true');
}

export class DefaultIngressClass implements MutatingPlugin {
  readonly name = name;

  async admit(a: AdmissionAttributes, lookup: AdmissionLookup): Promise<void> {
    // `admission.NewHandler(admission.Create)`.
    if (a.operation !== 'CREATE' || !isResource(a, 'networking.k8s.io', 'ingresses') || a.subresource !== '') return;
    const ingress = a.object as Ingress | undefined;
    if (ingress === undefined) return;
    if (ingress.spec?.ingressClassName !== undefined && ingress.spec.ingressClassName !== null) return;
    if (ingress.metadata?.annotations?.[ingressClassAnnotation] !== undefined) return;
    let def: IngressClass | undefined;
    try {
      def = getDefaultIngressClass(await lookup.listIngressClasses());
    } catch (e) {
      throw asForbidden(a, e);
    }
    if (def === undefined) return;
    (ingress.spec ??= {}).ingressClassName = def.metadata?.name ?? '';
  }
}

export function create(): DefaultIngressClass {
  return new DefaultIngressClass();
}
