"use client";
/**
 * Whether report notes may show images from other hosts on this page: the admin's setting as this page's
 * Content-Security-Policy has it (proxy.ts decides both, app/layout.tsx passes it down), so a note never
 * asks for an image the browser would refuse. Off by default (and in tests without the provider).
 */
import { createContext, useContext } from "react";

const ImagePolicy = createContext<{ otherHosts: boolean }>({ otherHosts: false });

export function ImagePolicyProvider({ otherHosts, children }: { otherHosts: boolean; children: React.ReactNode }) {
  return <ImagePolicy.Provider value={{ otherHosts }}>{children}</ImagePolicy.Provider>;
}

export function useImagePolicy(): { otherHosts: boolean } {
  return useContext(ImagePolicy);
}
