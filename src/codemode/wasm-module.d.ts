/** quickjs-wasi's wasm binary, imported `with { type: "file" }`: a path (inside the executable once compiled). */
declare module "quickjs-wasi/quickjs.wasm" {
  const path: string;
  export default path;
}
