// Type-aware lint: the rule that matters most here is no-floating-promises,
// since an unhandled rejection inside a node would take Node-RED down.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "eslint.config.mjs", ".stryker-tmp/**", "reports/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
    },
  },
  {
    // The editor's scripts (served from resources/ by Node-RED) run in the browser beside Node-RED's editor.
    files: ["resources/**/*.js"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { projectService: false, project: false },
      sourceType: "script",
      globals: {
        RED: "readonly",
        $: "readonly",
        document: "readonly",
        window: "readonly",
        MutationObserver: "readonly",
        URL: "readonly",
        console: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
        performance: "readonly",
      },
    },
    rules: {
      ...tseslint.configs.disableTypeChecked.rules,
      "no-undef": "error",
      "no-unused-vars": ["error", { args: "none" }],
      "@typescript-eslint/no-unused-vars": "off",
      eqeqeq: ["error", "always", { null: "ignore" }],
      // Node-RED calls the dialog's functions with the node as `this`; callbacks inside keep it as `node`.
      "@typescript-eslint/no-this-alias": ["error", { allowedNames: ["node"] }],
      strict: "off",
    },
  },
  {
    // The build script, the dependency check's rules and the node shims Node-RED loads are plain CommonJS: linted without type information.
    files: ["scripts/**/*.js", ".dependency-cruiser.cjs", "nodes/*.js"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      parserOptions: { projectService: false, project: false },
      sourceType: "commonjs",
      globals: { require: "readonly", process: "readonly", __dirname: "readonly", __filename: "readonly", console: "readonly" },
    },
    rules: { ...tseslint.configs.disableTypeChecked.rules, "@typescript-eslint/no-require-imports": "off" },
  },
  {
    // StrykerJS's settings (npm run mutate): a plain ES module.
    files: ["stryker.config.mjs"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { parserOptions: { projectService: false, project: false }, sourceType: "module", globals: { URL: "readonly" } },
  },
);
