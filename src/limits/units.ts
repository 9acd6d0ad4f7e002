/** The byte units bounds are written in (not re-exported by src/limits.ts). */
export const KiB = 1024;
export const MiB = 1024 * KiB;
