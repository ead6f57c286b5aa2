/**
 * CDK app entry (`cdk.json`): reads the deployment parameters from context, builds the service
 * stack and runs cdk-nag on it. `npm run synth` synthesizes it offline.
 */
import { App } from 'aws-cdk-lib';
import { readDeployContext, serviceStackProps, type DeployContext } from './config.js';
import { addNagChecks } from './nag.js';
import { ServiceStack } from './stack.js';

const app = new App();
let context: DeployContext;
try {
  context = readDeployContext((key) => app.node.tryGetContext(key));
} catch (error) {
  // A parameter mistake is the deployer's to fix: say what is wrong, without a stack trace.
  console.error((error as Error).message);
  process.exit(1);
}
// Without credentials (an offline synth) both are undefined and the stack is environment-agnostic.
const env = { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION };
new ServiceStack(app, context.stackName, serviceStackProps(context, env));
addNagChecks(app);
app.synth();
