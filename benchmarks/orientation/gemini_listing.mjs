// Gemini CLI's startup folder listing for each directory given, printed as one JSON object
// {directory: listing}.
//
//   node gemini_listing.mjs <npm prefix holding @google/gemini-cli-core> <dir>...
//
// The CLI builds this part of its first prompt in getDirectoryContextString
// (utils/environmentContext.js): getFolderStructure(dir, { fileService }) with the
// defaults for everything else (200 items, node_modules/.git/dist/__pycache__
// shown as ignored), where fileService is the Config's FileDiscoveryService for the
// workspace, made with the default file filtering (respect .gitignore and
// .geminiignore, no custom ignore files). This does the same, without a Config.
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

// The package logs to the console ("Ignore file not found: ..."): keep stdout for the JSON.
for (const level of ['log', 'info', 'debug']) console[level] = console.error;

const [prefix, ...dirs] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(prefix), 'package.json'));
const core = await import(pathToFileURL(require.resolve('@google/gemini-cli-core')).href);
const filtering = core.DEFAULT_FILE_FILTERING_OPTIONS;
const listings = {};
for (const dir of dirs) {
  const fileService = new core.FileDiscoveryService(dir, {
    respectGitIgnore: filtering.respectGitIgnore,
    respectGeminiIgnore: filtering.respectGeminiIgnore,
    customIgnoreFilePaths: filtering.customIgnoreFilePaths,
  });
  listings[dir] = await core.getFolderStructure(dir, { fileService });
}
process.stdout.write(JSON.stringify(listings), () => process.exit(0));
