/**
 * The config layer's name for src/files/json-file.ts, which moved below auth/ so that auth/
 * never imports config/ (DESIGN.md). New code imports from src/files/ directly.
 */
export * from "../files/json-file.ts";
