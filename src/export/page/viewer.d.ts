/** viewer.js is embedded as text (`with { type: "text" }`), never imported as code. */
declare const text: string;
export default text;
