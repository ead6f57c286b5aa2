/**
 * CDK app entry (`cdk.json`): reads the deployment parameters from context, builds the deployment's
 * stacks (`infra/deployment.ts`) and runs cdk-nag on them. `npm run synth` synthesizes it offline.
 */
import { App } from 'aws-cdk-lib';
import { readDeployContext, type DeployContext } from './config.js';
import { buildDeployment } from './deployment.js';
import { addNagChecks } from './nag.js';

const app = new App();
let context: DeployContext;
try {
  context = readDeployContext((key) => app.node.tryGetContext(key));
  // Without credentials (an offline synth) both are undefined and the stack is environment-agnostic.
  buildDeployment(app, context, { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION });
} catch (error) {
  // A parameter mistake is the deployer's to fix: say what is wrong, without a stack trace.
  console.error((error as Error).message);
  process.exit(1);
}
addNagChecks(app);
app.synth();
