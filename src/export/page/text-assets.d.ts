/** Page assets embedded in the binary as text (`with { type: "text" }`). */
declare module "*.css" {
  const text: string;
  export default text;
}
