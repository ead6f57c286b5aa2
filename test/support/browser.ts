/**
 * The browser tier's Chromium (`./chromium.ts`): when none starts, the tier is skipped with one
 * line saying why and how to enable it, which the figures reporter prints after the run.
 */
import { startChromium, type BrowserLaunch } from './chromium.js';
import { addFigures } from './figures.js';

/** Start Chromium for a browser test; never throws: when none starts, the reason is noted for the run's summary and returned. */
export async function launchBrowser(): Promise<BrowserLaunch> {
  const launched = await startChromium();
  if ('skipped' in launched) addFigures({}, { browserTierSkipped: launched.skipped });
  return launched;
}
